import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Checkbox, Descriptions, Space, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { ErrorMessage } from '../../../components/error-message';
import { useListFeedback } from '../../../components/list-page';
import { type ListParams, ServerTable } from '../../../components/server-table';
import { departmentNames } from '../shared/pickers';
import { type UserBrief, userLabel } from '../shared/user-picker';
import { formatTime, StatusTag } from '../shared/view';
import { Panel } from './panel';
import type { Department } from './tree';

type Props = {
  department: Department;
  nodes: Department[];
  params: ListParams;
  onEdit: () => void;
  onCreateChild: () => void;
  onDeleted: () => void;
};

/** One department: where it sits, who leads it, its actions, and its users one server page at a time. */
export function DepartmentDetail({ department: d, nodes, params, onEdit, onCreateChild, onDeleted }: Props) {
  const { t } = useTranslation('identity');
  const can = useMayCall();
  const { confirm } = useListFeedback(['identity', 'departments']);
  const names = departmentNames(nodes);
  const sub = params.filters.sub === '1';
  const query = { page: params.page, pageSize: params.pageSize, ...(sub ? { includeSubDepartments: true } : {}) };
  const users = useQuery({
    queryKey: ['identity', 'departments', 'users', d.id, query],
    queryFn: () => unwrap(api.GET('/api/departments/{id}/users', { params: { path: { id: d.id }, query } })),
    enabled: can('identity.department.users'),
    placeholderData: (previous) => previous,
  });
  const head = useQuery({
    queryKey: ['identity', 'users', 'detail', d.headUserId],
    queryFn: () => unwrap(api.GET('/api/users/{id}', { params: { path: { id: d.headUserId as number } } })),
    enabled: d.headUserId !== null && can('identity.user.get'),
    staleTime: 30_000,
  });
  // the server refuses a department with sub-departments or users: its answer stays in view, with
  // the request id, until another department is chosen
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/departments/{id}', { params: { path: { id: d.id } } })),
    onSuccess: onDeleted,
  });
  const { reset } = remove;
  // biome-ignore lint/correctness/useExhaustiveDependencies: another department chosen: the last one's error goes
  useEffect(() => reset(), [d.id, reset]);

  const location = [...d.ancestorIds.map((id) => names.get(id) ?? `#${id}`), d.name].join(' / ');
  const leader =
    d.headUserId === null ? t('departments.noLeader') : head.data ? userLabel(head.data) : `#${d.headUserId}`;
  const columns: ColumnsType<UserBrief> = [
    { title: t('users.username'), dataIndex: 'username' },
    { title: t('users.nickname'), dataIndex: 'nickname' },
  ];
  return (
    <Space orientation="vertical" size={16} style={{ width: '100%' }}>
      <Panel>
        <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
          <Typography.Title level={2} style={{ fontSize: 18, margin: 0 }}>
            {d.name}
          </Typography.Title>
          <Space wrap size={8}>
            {can('identity.department.create') ? (
              <Button onClick={onCreateChild}>{t('departments.createChild')}</Button>
            ) : null}
            {can('identity.department.update') ? <Button onClick={onEdit}>{t('edit')}</Button> : null}
            {can('identity.department.delete') ? (
              <Button
                danger
                loading={remove.isPending}
                onClick={() =>
                  confirm(t('departments.confirmDelete', { name: d.name }), t('delete'), () => remove.mutate())
                }
              >
                {t('delete')}
              </Button>
            ) : null}
          </Space>
        </Space>
        {remove.error ? (
          <div style={{ marginTop: 12 }}>
            <ErrorMessage error={remove.error} />
          </div>
        ) : null}
        <Descriptions
          size="small"
          column={{ xs: 1, md: 2 }}
          style={{ marginTop: 12 }}
          items={[
            { key: 'location', label: t('departments.location'), children: location },
            { key: 'leader', label: t('departments.leader'), children: leader },
            { key: 'status', label: t('status.label'), children: <StatusTag status={d.status} /> },
            { key: 'sort', label: t('sort'), children: d.sort },
            { key: 'created', label: t('createdAt'), children: formatTime(d.createdAt) },
            { key: 'updated', label: t('departments.updatedAt'), children: formatTime(d.updatedAt) },
          ]}
        />
      </Panel>
      {can('identity.department.users') ? (
        <Panel>
          <Space wrap style={{ width: '100%', justifyContent: 'space-between', marginBottom: 12 }}>
            <Typography.Title level={3} style={{ fontSize: 16, margin: 0 }}>
              {t('departments.users')}
            </Typography.Title>
            <Checkbox checked={sub} onChange={(e) => params.set({ sub: e.target.checked ? '1' : null })}>
              {t('departments.includeSub')}
            </Checkbox>
          </Space>
          <ErrorMessage error={users.error} />
          <ServerTable<UserBrief>
            label={t('departments.users')}
            rowKey="id"
            columns={columns}
            params={params}
            data={users.data}
            loading={users.isFetching}
            locale={{ emptyText: t('departments.noUsers') }}
          />
        </Panel>
      ) : null}
    </Space>
  );
}
