import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { ErrorMessage } from '../../../components/error-message';
import { KeywordSearch, PageTitle, RowActions, useListFeedback } from '../../../components/list-page';
import { ServerTable, useListParams } from '../../../components/server-table';
import { StatusFilter, StatusTag, statusQuery } from '../shared/view';

// the form (two trees) loads when opened: the list stays light
const RoleForm = lazy(() => import('./role-form').then((m) => ({ default: m.RoleForm })));

type Role = {
  id: number;
  code: string;
  name: string;
  permissions: string[];
  status: 'active' | 'disabled';
  sort: number;
};

/** Roles of the tenant: what each grants (permissions) and shows (menus). */
export default function RolesPage() {
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
  const roles = useQuery({
    queryKey: ['identity', 'roles', query],
    queryFn: () => unwrap(api.GET('/api/roles', { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const { done, fail } = useListFeedback(['identity', 'roles']);
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/roles/{id}', { params: { path: { id } } })),
    onSuccess: () => done(t('deleted')),
    onError: fail,
  });
  const columns: ColumnsType<Role> = [
    { title: t('name'), dataIndex: 'name' },
    { title: t('code'), dataIndex: 'code', render: (v: string) => <Typography.Text code>{v}</Typography.Text> },
    {
      title: t('roles.permissions'),
      dataIndex: 'permissions',
      render: (v: string[]) => (v.includes('*') ? <Tag>{t('roles.all')}</Tag> : v.length),
    },
    { title: t('status.label'), dataIndex: 'status', render: (v: Role['status']) => <StatusTag status={v} /> },
    { title: t('sort'), dataIndex: 'sort' },
    {
      title: t('actions'),
      key: 'actions',
      render: (_, r) => (
        <RowActions
          actions={[
            { label: t('edit'), show: can('identity.role.update'), onClick: () => setEditing(r.id) },
            {
              label: t('delete'),
              show: can('identity.role.delete'),
              confirm: t('roles.confirmDelete', { name: r.name }),
              onClick: () => remove.mutate(r.id),
            },
          ]}
        />
      ),
    },
  ];
  return (
    <>
      <PageTitle>{t('roles.title')}</PageTitle>
      <Space wrap style={{ marginBottom: 16 }}>
        <KeywordSearch params={params} label={t('search')} />
        <StatusFilter params={params} />
        {can('identity.role.create') ? (
          <Button type="primary" onClick={() => setEditing('new')}>
            {t('roles.create')}
          </Button>
        ) : null}
      </Space>
      <ErrorMessage error={roles.error} />
      <ServerTable<Role>
        label={t('roles.title')}
        rowKey="id"
        columns={columns}
        params={params}
        data={roles.data}
        loading={roles.isFetching}
      />
      <Suspense>
        {editing !== null ? (
          <RoleForm
            id={editing === 'new' ? null : editing}
            onClose={(saved) => {
              setEditing(null);
              if (saved) done(t('saved'));
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}
