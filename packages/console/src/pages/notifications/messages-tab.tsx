import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Input, Select, Space, Table, Tag, Typography, message as toast } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorMessage } from '../../components/error-message';
import { errorLine } from '../../components/error-text';
import { readFilter, useUrlState } from './url-state';

const TYPES = ['notification', 'system', 'manual'] as const;
type MessageType = (typeof TYPES)[number];
const FILTERS = ['state', 'type', 'keyword'] as const;

/** A console route opens in the console, an http(s) URL in a new tab, anything else not at all. */
function linkTarget(link: string | null): { route: string } | { href: string } | null {
  if (!link) return null;
  if (link.startsWith('/') && !link.startsWith('//')) return { route: link };
  try {
    const url = new URL(link);
    if (url.origin === window.location.origin) return { route: `${url.pathname}${url.search}${url.hash}` };
    if (url.protocol === 'https:' || url.protocol === 'http:') return { href: url.toString() };
  } catch {
    // not a URL
  }
  return null;
}

/** My in-app messages: server paging, filters in the URL, read, batch read and delete, read all. */
export function MessagesTab() {
  const { t, i18n } = useTranslation('notifications');
  const [message, toastHolder] = toast.useMessage();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { page, pageSize, values, update } = useUrlState(FILTERS);
  const [selected, setSelected] = useState<number[]>([]);
  // messages waiting for the person to confirm their deletion (a row's, or the selected ones)
  const [pendingDelete, setPendingDelete] = useState<number[] | null>(null);
  const [keyword, setKeyword] = useState(values.keyword ?? '');
  const type = (TYPES as readonly string[]).includes(values.type ?? '') ? (values.type as MessageType) : undefined;
  const query = {
    page,
    pageSize,
    isRead: readFilter(values.state),
    ...(type ? { type } : {}),
    ...(values.keyword ? { keyword: values.keyword } : {}),
  };
  const list = useQuery({
    queryKey: ['notifications', 'inapp', 'list', query],
    queryFn: () => unwrap(api.GET('/api/in-app-messages', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const done = () => {
    setSelected([]);
    return queryClient.invalidateQueries({ queryKey: ['notifications'] });
  };
  const onError = (err: unknown) => void message.error(errorLine(t, err));
  const read = useMutation({
    mutationFn: (ids: number[]) => unwrap(api.POST('/api/in-app-messages/batch-read', { body: { ids } })),
    onSuccess: (r) => void message.success(t('done.read', { count: r.affected.length })),
    onError,
    onSettled: done,
  });
  const remove = useMutation({
    mutationFn: (ids: number[]) => unwrap(api.DELETE('/api/in-app-messages/batch', { body: { ids } })),
    onSuccess: (r) => void message.success(t('done.deleted', { count: r.affected.length })),
    onError,
    onSettled: done,
  });
  const readAll = useMutation({
    mutationFn: () => unwrap(api.POST('/api/in-app-messages/read-all')),
    onSuccess: (r) => void message.success(t('done.read', { count: r.marked })),
    onError,
    onSettled: done,
  });
  const when = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' });

  type Row = NonNullable<typeof list.data>['list'][number];
  const openLink = (row: Row) => {
    if (!row.isRead) read.mutate([row.id]);
    const target = linkTarget(row.link);
    if (!target) return;
    if ('route' in target) navigate(target.route);
    else window.open(target.href, '_blank', 'noopener');
  };

  return (
    <>
      {toastHolder}
      <search aria-label={t('filters.label')}>
        <Space wrap style={{ marginBottom: 12 }}>
          <Select
            aria-label={t('filters.state')}
            style={{ width: 120 }}
            value={values.state ?? 'all'}
            onChange={(v) => update({ state: v === 'all' ? undefined : v })}
            options={['all', 'unread', 'read'].map((v) => ({ value: v, label: t(`filters.${v}`) }))}
          />
          <Select
            aria-label={t('filters.type')}
            style={{ width: 140 }}
            value={type ?? ''}
            onChange={(v) => update({ type: v || undefined })}
            options={[
              { value: '', label: t('filters.anyType') },
              ...TYPES.map((v) => ({ value: v, label: t(`types.${v}`) })),
            ]}
          />
          <Input.Search
            aria-label={t('filters.keyword')}
            placeholder={t('filters.keyword')}
            enterButton={t('actions.search')}
            allowClear
            maxLength={100}
            value={keyword}
            onChange={(e) => setKeyword(e.target.value)}
            onSearch={(v) => update({ keyword: v.trim() || undefined })}
          />
        </Space>
      </search>
      <Space wrap style={{ marginBottom: 12 }}>
        <Button disabled={selected.length === 0} loading={read.isPending} onClick={() => read.mutate(selected)}>
          {t('actions.readSelected')}
        </Button>
        {/* the confirmation in place: a popover for one question would load a chunk of its own */}
        {pendingDelete ? (
          <Space role="group" aria-label={t('actions.confirmDelete')}>
            <Typography.Text>{t('actions.confirmDelete')}</Typography.Text>
            <Button
              danger
              type="primary"
              onClick={() => {
                remove.mutate(pendingDelete);
                setPendingDelete(null);
              }}
            >
              {t('actions.delete')}
            </Button>
            <Button onClick={() => setPendingDelete(null)}>{t('actions.cancel')}</Button>
          </Space>
        ) : (
          <Button
            danger
            disabled={selected.length === 0}
            loading={remove.isPending}
            onClick={() => setPendingDelete(selected)}
          >
            {t('actions.deleteSelected')}
          </Button>
        )}
        <Button type="primary" loading={readAll.isPending} onClick={() => readAll.mutate()}>
          {t('actions.readAll')}
        </Button>
        {selected.length ? <Typography.Text>{t('selected', { count: selected.length })}</Typography.Text> : null}
      </Space>
      <ErrorMessage error={list.error} />
      <Table<Row>
        rowKey="id"
        size="middle"
        loading={list.isFetching}
        dataSource={list.data?.list ?? []}
        rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys as number[]) }}
        expandable={{
          expandedRowRender: (row) => (
            <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{row.content}</Typography.Paragraph>
          ),
          onExpand: (expanded, row) => {
            if (expanded && !row.isRead) read.mutate([row.id]);
          },
        }}
        pagination={{
          current: page,
          pageSize,
          total: list.data?.total ?? 0,
          showSizeChanger: true,
          showTotal: (count) => t('total', { count }),
          onChange: (p, size) => update({ page: p, pageSize: size === 20 ? undefined : size }),
        }}
        columns={[
          {
            title: t('columns.title'),
            dataIndex: 'title',
            render: (_, row) => {
              const text = row.isRead ? row.title : <strong>{t('unreadTitle', { title: row.title })}</strong>;
              return linkTarget(row.link) ? (
                <Button
                  type="link"
                  style={{ padding: 0, height: 'auto', whiteSpace: 'normal' }}
                  onClick={() => openLink(row)}
                >
                  {text}
                </Button>
              ) : (
                text
              );
            },
          },
          {
            title: t('columns.type'),
            dataIndex: 'type',
            width: 110,
            render: (v: MessageType) => <Tag>{t(`types.${v}`)}</Tag>,
          },
          {
            title: t('columns.state'),
            dataIndex: 'isRead',
            width: 90,
            render: (v: boolean) => (v ? t('filters.read') : <Tag color="blue">{t('filters.unread')}</Tag>),
          },
          {
            title: t('columns.createdAt'),
            dataIndex: 'createdAt',
            width: 190,
            render: (v: string) => when.format(new Date(v)),
          },
          {
            title: t('columns.actions'),
            key: 'actions',
            width: 180,
            render: (_, row) => (
              <Space size={4}>
                {row.isRead ? null : (
                  <Button
                    size="small"
                    aria-label={t('actions.markReadOf', { title: row.title })}
                    onClick={() => read.mutate([row.id])}
                  >
                    {t('actions.markRead')}
                  </Button>
                )}
                <Button
                  size="small"
                  danger
                  onClick={() => setPendingDelete([row.id])}
                  aria-label={t('actions.deleteOf', { title: row.title })}
                >
                  {t('actions.delete')}
                </Button>
              </Space>
            ),
          },
        ]}
      />
    </>
  );
}
