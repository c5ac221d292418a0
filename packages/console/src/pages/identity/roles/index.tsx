import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Input, Select, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { ErrorMessage, errorText } from '../../../components/error-message';
import { ServerTable, useListParams } from '../../../components/server-table';
import { StatusTag } from '../shared/view';

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
  const { message, modal } = App.useApp();
  const can = useMayCall();
  const params = useListParams(['keyword', 'status'] as const);
  const { keyword, status } = params.filters;
  const query = {
    page: params.page,
    pageSize: params.pageSize,
    ...(keyword ? { keyword } : {}),
    ...(status === 'active' || status === 'disabled' ? { status: status as 'active' | 'disabled' } : {}),
  };
  const roles = useQuery({
    queryKey: ['identity', 'roles', query],
    queryFn: () => unwrap(api.GET('/api/roles', { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [search, setSearch] = useState(keyword ?? '');
  const client = useQueryClient();
  const refresh = () => void client.invalidateQueries({ queryKey: ['identity', 'roles'] });
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/roles/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      void message.success(t('deleted'));
      refresh();
    },
    onError: (err) => void message.error(errorText(t, err)),
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
        <Space size={0}>
          {can('identity.role.update') ? (
            <Button type="link" onClick={() => setEditing(r.id)}>
              {t('edit')}
            </Button>
          ) : null}
          {can('identity.role.delete') ? (
            <Button
              type="link"
              danger
              onClick={() =>
                void modal.confirm({
                  title: t('roles.confirmDelete', { name: r.name }),
                  okText: t('delete'),
                  okButtonProps: { danger: true },
                  cancelText: t('cancel'),
                  onOk: () => remove.mutate(r.id),
                })
              }
            >
              {t('delete')}
            </Button>
          ) : null}
        </Space>
      ),
    },
  ];
  return (
    <>
      <Typography.Title level={1} style={{ fontSize: 22 }}>
        {t('roles.title')}
      </Typography.Title>
      <Space wrap style={{ marginBottom: 16 }}>
        <Input.Search
          aria-label={t('search')}
          placeholder={t('search')}
          allowClear
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          onSearch={(v) => params.set({ keyword: v.trim() })}
          style={{ width: 240 }}
        />
        <Select
          aria-label={t('status.label')}
          placeholder={t('status.label')}
          allowClear
          value={status}
          onChange={(v) => params.set({ status: v })}
          options={[
            { value: 'active', label: t('status.active') },
            { value: 'disabled', label: t('status.disabled') },
          ]}
          style={{ width: 140 }}
        />
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
              if (saved) {
                void message.success(t('saved'));
                refresh();
              }
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}
