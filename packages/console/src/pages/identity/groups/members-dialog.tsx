import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Form, Modal, Space, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { ErrorMessage } from '../../../components/error-message';
import { ServerTable } from '../../../components/server-table';
import { type UserBrief, UserPicker, userLabel } from '../shared/user-picker';
import type { Group } from './index';

/** The most members a group takes (the API's limit on one replacement). */
const MAX_MEMBERS = 1000;
const PAGE = 200;

/** Thrown before saving when the members would pass MAX_MEMBERS: said in words, nothing sent. */
class TooManyMembers extends Error {}

/**
 * Every member id of a group, read page by page at save time. The API replaces members as a
 * whole list, so the list sent must hold those not on screen; a group has at most 1,000 members
 * (the replacement's limit), so this is at most five small reads.
 */
async function memberIds(id: number): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const r = await unwrap(
      api.GET('/api/user-groups/{id}/members', { params: { path: { id }, query: { page, pageSize: PAGE } } }),
    );
    ids.push(...r.list.map((u) => u.id));
    if (r.list.length < PAGE || ids.length >= r.total) return ids;
  }
}

/**
 * A group's members, one server page at a time, with users to add (searched on the server, never
 * all loaded) and members marked for removal; saving applies both to the group's members as they
 * are at that moment.
 */
export function MembersDialog({ group, onClose }: { group: Group; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation('identity');
  const can = useMayCall();
  const editable = can('identity.user_group.set_members');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(10);
  const [adding, setAdding] = useState<number[]>([]);
  const [removing, setRemoving] = useState(new Set<number>());
  const members = useQuery({
    queryKey: ['identity', 'groups', 'members', group.id, page, pageSize],
    queryFn: () =>
      unwrap(
        api.GET('/api/user-groups/{id}/members', { params: { path: { id: group.id }, query: { page, pageSize } } }),
      ),
    placeholderData: (previous) => previous,
  });
  const save = useMutation({
    mutationFn: async () => {
      const next = new Set((await memberIds(group.id)).filter((id) => !removing.has(id)));
      for (const id of adding) next.add(id);
      if (next.size > MAX_MEMBERS) throw new TooManyMembers();
      return unwrap(
        api.PUT('/api/user-groups/{id}/members', { params: { path: { id: group.id } }, body: { userIds: [...next] } }),
      );
    },
    onSuccess: () => onClose(true),
  });
  const toggle = (id: number) =>
    setRemoving((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const changed = adding.length > 0 || removing.size > 0;
  const columns: ColumnsType<UserBrief> = [
    {
      title: t('groups.user'),
      key: 'user',
      render: (_, u) =>
        removing.has(u.id) ? (
          <Space>
            <Typography.Text delete>{userLabel(u)}</Typography.Text>
            <Typography.Text type="secondary">{t('groups.toRemove')}</Typography.Text>
          </Space>
        ) : (
          userLabel(u)
        ),
    },
    ...(editable
      ? [
          {
            title: t('actions'),
            key: 'actions',
            width: 120,
            render: (_: unknown, u: UserBrief) => (
              <Button type="link" danger={!removing.has(u.id)} onClick={() => toggle(u.id)}>
                {t(removing.has(u.id) ? 'groups.undo' : 'groups.remove')}
              </Button>
            ),
          },
        ]
      : []),
  ];
  return (
    <Modal
      open
      title={t('groups.membersOf', { name: group.name })}
      onCancel={() => onClose(false)}
      destroyOnHidden
      width={640}
      footer={
        editable ? (
          <Space>
            <Button onClick={() => onClose(false)}>{t('cancel')}</Button>
            <Button type="primary" disabled={!changed} loading={save.isPending} onClick={() => save.mutate()}>
              {t('save')}
            </Button>
          </Space>
        ) : (
          <Button onClick={() => onClose(false)}>{t('groups.close')}</Button>
        )
      }
    >
      {save.error instanceof TooManyMembers ? (
        <Alert type="error" showIcon role="alert" title={t('groups.tooMany', { max: MAX_MEMBERS })} />
      ) : (
        <ErrorMessage error={members.error ?? save.error} />
      )}
      {editable ? (
        <Form layout="vertical" style={{ marginTop: 16 }}>
          <Form.Item label={t('groups.add')} htmlFor="group-members-add" extra={t('groups.addHelp')}>
            <UserPicker
              id="group-members-add"
              multiple
              placeholder={t('groups.addPlaceholder')}
              value={adding}
              onChange={(v) => setAdding(Array.isArray(v) ? v : [])}
            />
          </Form.Item>
        </Form>
      ) : null}
      {changed ? (
        <Typography.Paragraph type="secondary">
          {t('groups.pending', { added: adding.length, removed: removing.size })}
        </Typography.Paragraph>
      ) : null}
      <ServerTable<UserBrief>
        label={t('groups.members')}
        rowKey="id"
        size="small"
        columns={columns}
        params={{
          page,
          pageSize,
          set: (next) => {
            setPage(Number(next.page) || 1);
            if (next.pageSize) setPageSize(Number(next.pageSize));
          },
        }}
        data={members.data}
        loading={members.isFetching}
        locale={{ emptyText: t('groups.noMembers') }}
      />
    </Modal>
  );
}
