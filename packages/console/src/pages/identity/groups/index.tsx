import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Space } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { ErrorMessage } from '../../../components/error-message';
import { KeywordSearch, PageTitle, RowActions, useListFeedback } from '../../../components/list-page';
import { ServerTable, useListParams } from '../../../components/server-table';
import { formatTime } from '../shared/view';

// the dialogs load when opened: the list stays light
const GroupForm = lazy(() => import('./group-form').then((m) => ({ default: m.GroupForm })));
const MembersDialog = lazy(() => import('./members-dialog').then((m) => ({ default: m.MembersDialog })));

export type Group = { id: number; name: string; remark: string; memberCount: number; updatedAt: string };

/** User groups of the tenant (named sets of users, granted access as one): one server page at a time. */
export default function GroupsPage() {
  const { t } = useTranslation('identity');
  const can = useMayCall();
  const params = useListParams(['keyword'] as const);
  const { keyword } = params.filters;
  const query = { page: params.page, pageSize: params.pageSize, ...(keyword ? { keyword } : {}) };
  const groups = useQuery({
    queryKey: ['identity', 'groups', query],
    queryFn: () => unwrap(api.GET('/api/user-groups', { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [members, setMembers] = useState<Group | null>(null);
  const { done, fail } = useListFeedback(['identity', 'groups']);
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/user-groups/{id}', { params: { path: { id } } })),
    onSuccess: () => done(t('deleted')),
    onError: fail,
  });
  const columns: ColumnsType<Group> = [
    { title: t('name'), dataIndex: 'name' },
    { title: t('groups.memberCount'), dataIndex: 'memberCount', width: 110 },
    { title: t('remark'), dataIndex: 'remark', ellipsis: true },
    { title: t('groups.updatedAt'), dataIndex: 'updatedAt', render: (v: string) => formatTime(v) },
    {
      title: t('actions'),
      key: 'actions',
      // the remark's ellipsis fixes the layout: room for three actions in either language
      width: 240,
      render: (_, g) => (
        <RowActions
          actions={[
            { label: t('groups.members'), show: can('identity.user_group.members'), onClick: () => setMembers(g) },
            { label: t('edit'), show: can('identity.user_group.update'), onClick: () => setEditing(g.id) },
            {
              label: t('delete'),
              show: can('identity.user_group.delete'),
              confirm: t('groups.confirmDelete', { name: g.name }),
              onClick: () => remove.mutate(g.id),
            },
          ]}
        />
      ),
    },
  ];
  return (
    <>
      <PageTitle>{t('groups.title')}</PageTitle>
      <Space wrap style={{ marginBottom: 16 }}>
        <KeywordSearch params={params} label={t('groups.search')} />
        {can('identity.user_group.create') ? (
          <Button type="primary" onClick={() => setEditing('new')}>
            {t('groups.create')}
          </Button>
        ) : null}
      </Space>
      <ErrorMessage error={groups.error} />
      <ServerTable<Group>
        label={t('groups.title')}
        rowKey="id"
        columns={columns}
        params={params}
        data={groups.data}
        loading={groups.isFetching}
      />
      <Suspense>
        {editing !== null ? (
          <GroupForm
            id={editing === 'new' ? null : editing}
            onClose={(saved) => {
              setEditing(null);
              if (saved) done(t('saved'));
            }}
          />
        ) : null}
        {members ? (
          <MembersDialog
            group={members}
            onClose={(saved) => {
              setMembers(null);
              if (saved) done(t('groups.membersSaved'));
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}
