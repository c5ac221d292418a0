import { LockOutlined } from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { type Key, lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { ErrorMessage } from '../../../components/error-message';
import { KeywordSearch, PageTitle, RowActions, useListFeedback } from '../../../components/list-page';
import { ServerTable, useListParams } from '../../../components/server-table';
import { DepartmentFilter, departmentNames, RoleFilter, useDepartmentTree } from '../shared/pickers';
import { formatTime, StatusFilter, StatusTag, statusQuery } from '../shared/view';

const ResetPasswordDialog = lazy(() => import('./reset-password').then((m) => ({ default: m.ResetPasswordDialog })));
// the forms load when opened: the list stays light
const UserForm = lazy(() => import('./user-form').then((m) => ({ default: m.UserForm })));

type User = {
  id: number;
  username: string;
  nickname: string;
  email: string | null;
  departmentId: number | null;
  status: 'active' | 'disabled';
  isSuper: boolean;
  lockedUntil: string | null;
  lastLoginAt: string | null;
};

const FILTERS = ['keyword', 'status', 'departmentId', 'roleId'] as const;

/** Users of the tenant: one server page at a time, filters in the URL, actions by permission. */
export default function UsersPage() {
  const { t } = useTranslation('identity');
  const can = useMayCall();
  const location = useLocation();
  const params = useListParams(FILTERS);
  const { keyword, status, departmentId, roleId } = params.filters;
  const query = {
    page: params.page,
    pageSize: params.pageSize,
    ...(keyword ? { keyword } : {}),
    ...statusQuery(status),
    ...(departmentId ? { departmentId: Number(departmentId), includeSubDepartments: true } : {}),
    ...(roleId ? { roleId: Number(roleId) } : {}),
  };
  const users = useQuery({
    queryKey: ['identity', 'users', query],
    queryFn: () => unwrap(api.GET('/api/users', { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const names = departmentNames(useDepartmentTree().data);
  const [selected, setSelected] = useState<Key[]>([]);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [resetting, setResetting] = useState<User | null>(null);
  const { done, fail, confirm } = useListFeedback(['identity', 'users'], () => setSelected([]));
  const ids = selected.map(Number);
  const batchStatus = useMutation({
    mutationFn: (to: 'active' | 'disabled') =>
      unwrap(api.PUT('/api/users/batch-status', { body: { ids, status: to } })),
    onSuccess: (r) => done(t('users.changed', { count: r.affected.length })),
    onError: fail,
  });
  const batchDelete = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/users/batch', { body: { ids } })),
    onSuccess: (r) => done(t('users.deleted', { count: r.affected.length })),
    onError: fail,
  });
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/users/{id}', { params: { path: { id } } })),
    onSuccess: () => done(t('users.deleted', { count: 1 })),
    onError: fail,
  });
  const unlock = useMutation({
    mutationFn: (id: number) => unwrap(api.POST('/api/users/{id}/unlock', { params: { path: { id } } })),
    onSuccess: () => done(t('users.unlocked')),
    onError: fail,
  });

  const locked = (u: User) => !!u.lockedUntil && new Date(u.lockedUntil).getTime() > Date.now();
  const columns: ColumnsType<User> = [
    {
      title: t('users.username'),
      dataIndex: 'username',
      // the detail page; it comes back to the list as it was left (page and filters)
      render: (v: string, u) => {
        const link = (
          <Link to={`/system/users/${u.id}`} state={{ list: location.search }}>
            {v}
          </Link>
        );
        return u.isSuper ? (
          <Space>
            {link}
            <Tag>{t('users.super')}</Tag>
          </Space>
        ) : (
          link
        );
      },
    },
    { title: t('users.nickname'), dataIndex: 'nickname' },
    { title: t('users.email'), dataIndex: 'email', render: (v: string | null) => v ?? '' },
    {
      title: t('users.department'),
      dataIndex: 'departmentId',
      render: (v: number | null) => (v ? (names.get(v) ?? v) : ''),
    },
    {
      title: t('status.label'),
      dataIndex: 'status',
      render: (v: User['status'], u) => (
        <Space size={4}>
          <StatusTag status={v} />
          {locked(u) ? <Tag icon={<LockOutlined aria-hidden />}>{t('users.locked')}</Tag> : null}
        </Space>
      ),
    },
    { title: t('users.lastLogin'), dataIndex: 'lastLoginAt', render: (v: string | null) => formatTime(v) },
    {
      title: t('actions'),
      key: 'actions',
      render: (_, u) => (
        <RowActions
          wrap
          actions={[
            { label: t('edit'), show: can('identity.user.update'), onClick: () => setEditing(u.id) },
            {
              label: t('users.resetPassword'),
              show: can('identity.user.reset_password'),
              onClick: () => setResetting(u),
            },
            {
              label: t('users.unlock'),
              show: can('identity.user.unlock') && locked(u),
              onClick: () => unlock.mutate(u.id),
            },
            {
              label: t('delete'),
              show: can('identity.user.delete'),
              confirm: t('users.confirmDelete', { name: u.username }),
              onClick: () => remove.mutate(u.id),
            },
          ]}
        />
      ),
    },
  ];

  return (
    <>
      <PageTitle>{t('users.title')}</PageTitle>
      <Space wrap style={{ marginBottom: 16 }}>
        <KeywordSearch params={params} label={t('users.search')} />
        <StatusFilter params={params} />
        <DepartmentFilter
          aria-label={t('users.department')}
          value={departmentId ? Number(departmentId) : null}
          onChange={(v) => params.set({ departmentId: v })}
        />
        <RoleFilter
          aria-label={t('users.roles')}
          value={roleId ? Number(roleId) : undefined}
          onChange={(v) => params.set({ roleId: v })}
        />
      </Space>
      <Space wrap style={{ marginBottom: 16, display: 'flex' }}>
        {can('identity.user.create') ? (
          <Button type="primary" onClick={() => setEditing('new')}>
            {t('users.create')}
          </Button>
        ) : null}
        {can('identity.user.update') ? (
          <>
            <Button disabled={!ids.length} loading={batchStatus.isPending} onClick={() => batchStatus.mutate('active')}>
              {t('users.enable')}
            </Button>
            <Button
              disabled={!ids.length}
              loading={batchStatus.isPending}
              onClick={() => batchStatus.mutate('disabled')}
            >
              {t('users.disable')}
            </Button>
          </>
        ) : null}
        {can('identity.user.delete') ? (
          <Button
            danger
            disabled={!ids.length}
            loading={batchDelete.isPending}
            onClick={() =>
              confirm(t('users.confirmBatchDelete', { count: ids.length }), t('delete'), () => batchDelete.mutate())
            }
          >
            {t('users.batchDelete')}
          </Button>
        ) : null}
        {ids.length ? <Typography.Text type="secondary">{t('selected', { count: ids.length })}</Typography.Text> : null}
      </Space>
      <ErrorMessage error={users.error} />
      <ServerTable<User>
        label={t('users.title')}
        rowKey="id"
        columns={columns}
        params={params}
        data={users.data}
        loading={users.isFetching}
        selected={selected}
        onSelect={can('identity.user.update') || can('identity.user.delete') ? setSelected : undefined}
      />
      <Suspense>
        {editing !== null ? (
          <UserForm
            id={editing === 'new' ? null : editing}
            onClose={(saved) => {
              setEditing(null);
              if (saved) done(t('saved'));
            }}
          />
        ) : null}
        {resetting ? <ResetPasswordDialog user={resetting} onClose={() => setResetting(null)} /> : null}
      </Suspense>
    </>
  );
}
