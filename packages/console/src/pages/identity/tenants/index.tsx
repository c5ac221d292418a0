import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Space, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { ErrorMessage } from '../../../components/error-message';
import { KeywordSearch, PageTitle, RowActions, useListFeedback } from '../../../components/list-page';
import { ServerTable, useListParams } from '../../../components/server-table';
import { formatTime, StatusFilter, StatusTag, statusQuery } from '../shared/view';
import { ExpiryCell } from './expiry-cell';

// the form (a date picker) loads when opened: the list stays light
const TenantForm = lazy(() => import('./tenant-form').then((m) => ({ default: m.TenantForm })));

type Tenant = {
  id: number;
  code: string;
  name: string;
  status: 'active' | 'disabled';
  expiresAt: string | null;
  remark: string;
  createdAt: string;
};

/**
 * The platform's tenants (platform administrators only: platform:tenant:*). Tenants are disabled,
 * never deleted (docs/decisions/0002): the API has no delete, and neither has this page.
 */
export default function TenantsPage() {
  const { t } = useTranslation('identity');
  const can = useMayCall();
  const params = useListParams(['keyword', 'status'] as const);
  const { keyword, status } = params.filters;
  const query = {
    page: params.page,
    pageSize: params.pageSize,
    ...(keyword ? { keyword } : {}),
    ...statusQuery(status),
  };
  const tenants = useQuery({
    queryKey: ['identity', 'tenants', query],
    queryFn: () => unwrap(api.GET('/api/tenants', { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const { done, fail } = useListFeedback(['identity', 'tenants']);
  const setStatus = useMutation({
    mutationFn: ({ id, to }: { id: number; to: Tenant['status'] }) =>
      unwrap(api.PUT('/api/tenants/{id}', { params: { path: { id } }, body: { status: to } })),
    onSuccess: (r) => done(t(r.status === 'active' ? 'tenants.wasEnabled' : 'tenants.wasDisabled', { name: r.name })),
    onError: fail,
  });
  const mayUpdate = can('identity.tenant.update');
  const columns: ColumnsType<Tenant> = [
    { title: t('name'), dataIndex: 'name' },
    { title: t('code'), dataIndex: 'code', render: (v: string) => <Typography.Text code>{v}</Typography.Text> },
    { title: t('status.label'), dataIndex: 'status', render: (v: Tenant['status']) => <StatusTag status={v} /> },
    {
      title: t('tenants.expiresAt'),
      dataIndex: 'expiresAt',
      render: (v: string | null) => <ExpiryCell expiresAt={v} />,
    },
    { title: t('createdAt'), dataIndex: 'createdAt', render: (v: string) => formatTime(v) },
    { title: t('remark'), dataIndex: 'remark', ellipsis: true },
  ];
  if (mayUpdate)
    columns.push({
      title: t('actions'),
      key: 'actions',
      render: (_, r) => (
        <RowActions
          actions={[
            { label: t('edit'), onClick: () => setEditing(r.id) },
            r.status === 'active'
              ? {
                  label: t('tenants.disable'),
                  confirm: t('tenants.confirmDisable', { name: r.name }),
                  onClick: () => setStatus.mutate({ id: r.id, to: 'disabled' }),
                }
              : { label: t('tenants.enable'), onClick: () => setStatus.mutate({ id: r.id, to: 'active' }) },
          ]}
        />
      ),
    });

  return (
    <>
      <PageTitle>{t('tenants.title')}</PageTitle>
      <Space wrap style={{ marginBottom: 16 }}>
        <KeywordSearch params={params} label={t('search')} />
        <StatusFilter params={params} />
        {can('identity.tenant.create') ? (
          <Button type="primary" onClick={() => setEditing('new')}>
            {t('tenants.create')}
          </Button>
        ) : null}
      </Space>
      <ErrorMessage error={tenants.error} />
      <ServerTable<Tenant>
        label={t('tenants.title')}
        rowKey="id"
        columns={columns}
        params={params}
        data={tenants.data}
        loading={tenants.isFetching}
      />
      <Suspense>
        {editing !== null ? (
          <TenantForm
            id={editing === 'new' ? null : editing}
            onClose={(said) => {
              setEditing(null);
              if (said) done(said);
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}
