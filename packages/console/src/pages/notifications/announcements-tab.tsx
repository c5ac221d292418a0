import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Select, Space, Table, Tag, Typography, message as toast } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorMessage } from '../../components/error-message';
import { errorLine } from '../../components/error-text';
import { readFilter, useUrlState } from './url-state';

const FILTERS = ['state', 'open'] as const;
const PRIORITY_COLOR = { low: 'default', normal: 'blue', high: 'orange', urgent: 'red' } as const;

/** The announcements that reach me, with their read state; opening one marks it read. */
export default function AnnouncementsTab() {
  const { t, i18n } = useTranslation('notifications');
  const [message, toastHolder] = toast.useMessage();
  const queryClient = useQueryClient();
  const { page, pageSize, values, update } = useUrlState(FILTERS);
  const query = { page, pageSize, isRead: readFilter(values.state) };
  const list = useQuery({
    queryKey: ['notifications', 'announcements', 'list', query],
    queryFn: () => unwrap(api.GET('/api/announcements/inbox', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const done = () => queryClient.invalidateQueries({ queryKey: ['notifications'] });
  const onError = (err: unknown) => void message.error(errorLine(t, err));
  const read = useMutation({
    mutationFn: (id: number) => unwrap(api.POST('/api/announcements/{id}/read', { params: { path: { id } } })),
    onError,
    onSettled: done,
  });
  const readAll = useMutation({
    mutationFn: () => unwrap(api.POST('/api/announcements/read-all')),
    onError,
    onSettled: done,
  });
  const when = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' });
  type Row = NonNullable<typeof list.data>['list'][number];
  const openId = Number(values.open) || undefined;

  return (
    <>
      {toastHolder}
      <Space wrap style={{ marginBottom: 12 }}>
        <Select
          aria-label={t('filters.state')}
          style={{ width: 120 }}
          value={values.state ?? 'all'}
          onChange={(v) => update({ state: v === 'all' ? undefined : v })}
          options={['all', 'unread', 'read'].map((v) => ({ value: v, label: t(`filters.${v}`) }))}
        />
        <Button type="primary" loading={readAll.isPending} onClick={() => readAll.mutate()}>
          {t('actions.readAll')}
        </Button>
      </Space>
      <ErrorMessage error={list.error} />
      <Table<Row>
        rowKey="id"
        size="middle"
        loading={list.isFetching}
        dataSource={list.data?.list ?? []}
        expandable={{
          expandedRowKeys: openId ? [openId] : [],
          expandedRowRender: (row) => (
            // biome-ignore lint/security/noDangerouslySetInnerHtml: the server sanitizes announcement HTML (rich editor), and the console's CSP runs no inline script
            <div className="announcement-content" dangerouslySetInnerHTML={{ __html: row.content }} />
          ),
          onExpand: (expanded, row) => {
            update({ open: expanded ? row.id : undefined, page, pageSize: pageSize === 20 ? undefined : pageSize });
            if (expanded && !row.isRead) read.mutate(row.id);
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
            render: (_, row) =>
              row.isRead ? (
                row.title
              ) : (
                <Typography.Text strong>{t('unreadTitle', { title: row.title })}</Typography.Text>
              ),
          },
          {
            title: t('columns.priority'),
            dataIndex: 'priority',
            width: 100,
            render: (v: Row['priority']) => <Tag color={PRIORITY_COLOR[v]}>{t(`priority.${v}`)}</Tag>,
          },
          {
            title: t('columns.publishTime'),
            dataIndex: 'publishTime',
            width: 190,
            render: (v: string) => when.format(new Date(v)),
          },
          {
            title: t('columns.actions'),
            key: 'actions',
            width: 130,
            render: (_, row) =>
              row.isRead ? null : (
                <Button
                  size="small"
                  aria-label={t('actions.markReadOf', { title: row.title })}
                  onClick={() => read.mutate(row.id)}
                >
                  {t('actions.markRead')}
                </Button>
              ),
          },
        ]}
      />
    </>
  );
}
