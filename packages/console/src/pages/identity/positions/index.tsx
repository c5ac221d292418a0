import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Space, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { type Key, lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { ErrorMessage } from '../../../components/error-message';
import { KeywordSearch, PageTitle, RowActions, useListFeedback } from '../../../components/list-page';
import { ServerTable, useListParams } from '../../../components/server-table';
import { formatTime, StatusFilter, StatusTag, statusQuery } from '../shared/view';

// the form loads when opened: the list stays light
const PositionForm = lazy(() => import('./position-form').then((m) => ({ default: m.PositionForm })));

type Position = {
  id: number;
  code: string;
  name: string;
  sort: number;
  status: 'active' | 'disabled';
  remark: string;
  createdAt: string;
};

/** Positions of the tenant (what users hold beside their department): one server page at a time. */
export default function PositionsPage() {
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
  const positions = useQuery({
    queryKey: ['identity', 'positions', query],
    queryFn: () => unwrap(api.GET('/api/positions', { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const [selected, setSelected] = useState<Key[]>([]);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const { done, fail, confirm } = useListFeedback(['identity', 'positions'], () => setSelected([]));
  const ids = selected.map(Number);
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/positions/{id}', { params: { path: { id } } })),
    onSuccess: () => done(t('positions.deleted', { count: 1 })),
    onError: fail,
  });
  const batchDelete = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/positions/batch', { body: { ids } })),
    onSuccess: (r) => done(t('positions.deleted', { count: r.affected.length })),
    onError: fail,
  });
  const columns: ColumnsType<Position> = [
    { title: t('name'), dataIndex: 'name' },
    { title: t('code'), dataIndex: 'code', render: (v: string) => <Typography.Text code>{v}</Typography.Text> },
    { title: t('status.label'), dataIndex: 'status', render: (v: Position['status']) => <StatusTag status={v} /> },
    { title: t('sort'), dataIndex: 'sort' },
    { title: t('remark'), dataIndex: 'remark', ellipsis: true },
    { title: t('createdAt'), dataIndex: 'createdAt', render: (v: string) => formatTime(v) },
    {
      title: t('actions'),
      key: 'actions',
      render: (_, p) => (
        <RowActions
          actions={[
            { label: t('edit'), show: can('identity.position.update'), onClick: () => setEditing(p.id) },
            {
              label: t('delete'),
              show: can('identity.position.delete'),
              confirm: t('positions.confirmDelete', { name: p.name }),
              onClick: () => remove.mutate(p.id),
            },
          ]}
        />
      ),
    },
  ];
  return (
    <>
      <PageTitle>{t('positions.title')}</PageTitle>
      <Space wrap style={{ marginBottom: 16 }}>
        <KeywordSearch params={params} label={t('search')} />
        <StatusFilter params={params} />
        {can('identity.position.create') ? (
          <Button type="primary" onClick={() => setEditing('new')}>
            {t('positions.create')}
          </Button>
        ) : null}
        {can('identity.position.batch_delete') ? (
          <Button
            danger
            disabled={!ids.length}
            loading={batchDelete.isPending}
            onClick={() =>
              confirm(t('positions.confirmBatchDelete', { count: ids.length }), t('delete'), () => batchDelete.mutate())
            }
          >
            {t('positions.batchDelete')}
          </Button>
        ) : null}
        {ids.length ? <Typography.Text type="secondary">{t('selected', { count: ids.length })}</Typography.Text> : null}
      </Space>
      <ErrorMessage error={positions.error} />
      <ServerTable<Position>
        label={t('positions.title')}
        rowKey="id"
        columns={columns}
        params={params}
        data={positions.data}
        loading={positions.isFetching}
        selected={selected}
        onSelect={can('identity.position.batch_delete') ? setSelected : undefined}
      />
      <Suspense>
        {editing !== null ? (
          <PositionForm
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
