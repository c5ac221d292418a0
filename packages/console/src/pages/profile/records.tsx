import { CheckCircleFilled, CloseCircleFilled, ExportOutlined } from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Flex, Table, Tag, Typography, theme } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { setTaskDrawerOpen, taskKeys } from '../../app/shell/task-calls';
import { ErrorMessage } from '../../components/error-message';
import { formatDateTime } from '../../components/format';
import { useListFeedback } from '../../components/list-page';
import { ScrollRegion } from '../../components/scroll-region';

const PAGE_SIZES = [10, 20, 50, 100];

/** The page and page size of the URL (server paging; a reload shows the same page). */
function usePaging() {
  const [params, setParams] = useSearchParams();
  const number = (name: string, fallback: number, max: number) => {
    const n = Number(params.get(name));
    return Number.isInteger(n) && n >= 1 && n <= max ? n : fallback;
  };
  const page = number('page', 1, 10_000);
  const pageSize = PAGE_SIZES.includes(number('pageSize', 20, 200)) ? number('pageSize', 20, 200) : 20;
  const setPaging = (nextPage: number, nextSize: number) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      // a new page size starts again at its first page
      next.set('page', String(nextSize === pageSize ? nextPage : 1));
      next.set('pageSize', String(nextSize));
      return next;
    });
  return { page, pageSize, setPaging };
}

function pagination(paging: ReturnType<typeof usePaging>, total: number | undefined, totalText: (n: number) => string) {
  return {
    current: paging.page,
    pageSize: paging.pageSize,
    total: total ?? 0,
    pageSizeOptions: PAGE_SIZES,
    showSizeChanger: true,
    showTotal: totalText,
    onChange: paging.setPaging,
  };
}

/**
 * A result in words on a neutral tag, its colour on the icon only: antd's green and red tags write
 * #52c41a on #f6ffed (contrast 2.2), which the accessibility test refused.
 */
function Outcome({ ok, children }: { ok: boolean; children: ReactNode }) {
  const { token } = theme.useToken();
  return (
    // the icon as a child: antd's Tag paints its `icon` in the text colour
    <Tag>
      {ok ? (
        <CheckCircleFilled style={{ color: token.colorSuccess, marginInlineEnd: 6 }} />
      ) : (
        <CloseCircleFilled style={{ color: token.colorError, marginInlineEnd: 6 }} />
      )}
      {children}
    </Tag>
  );
}

/** GET /api/profile/login-logs: the person's sign-ins, successful or not, newest first. */
export function LoginRecords() {
  const { t, i18n } = useTranslation('profile');
  const paging = usePaging();
  const query = useQuery({
    queryKey: ['profile', 'login-logs', paging.page, paging.pageSize],
    queryFn: () =>
      unwrap(
        api.GET('/api/profile/login-logs', { params: { query: { page: paging.page, pageSize: paging.pageSize } } }),
      ),
    placeholderData: (previous) => previous,
  });
  type Row = NonNullable<typeof query.data>['list'][number];
  const columns: ColumnsType<Row> = [
    { key: 'at', title: t('records.at'), render: (_, r) => formatDateTime(r.createdAt, i18n.language), width: 200 },
    {
      key: 'result',
      title: t('records.result'),
      render: (_, r) => <Outcome ok={r.success}>{t(`reason.${r.reason}`, { defaultValue: r.reason })}</Outcome>,
    },
    { key: 'ip', title: t('records.ip'), dataIndex: 'ip' },
    {
      key: 'agent',
      title: t('records.userAgent'),
      render: (_, r) => (
        <Typography.Text ellipsis={{ tooltip: r.userAgent }} style={{ maxWidth: 360 }}>
          {r.userAgent || t('details.none')}
        </Typography.Text>
      ),
    },
  ];
  return (
    <>
      <ErrorMessage error={query.error} />
      <ScrollRegion label={t('tabs.logins')}>
        <Table<Row>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={query.data?.list}
          loading={query.isFetching}
          pagination={pagination(paging, query.data?.total, (count) => t('records.total', { count }))}
          locale={{ emptyText: t('records.empty') }}
        />
      </ScrollRegion>
    </>
  );
}

/** GET /api/profile/operation-logs: what the person did through the API, newest first. */
export function OperationRecords() {
  const { t, i18n } = useTranslation('profile');
  const paging = usePaging();
  const query = useQuery({
    queryKey: ['profile', 'operation-logs', paging.page, paging.pageSize],
    queryFn: () =>
      unwrap(
        api.GET('/api/profile/operation-logs', { params: { query: { page: paging.page, pageSize: paging.pageSize } } }),
      ),
    placeholderData: (previous) => previous,
  });
  type Row = NonNullable<typeof query.data>['list'][number];
  const columns: ColumnsType<Row> = [
    { key: 'at', title: t('records.at'), render: (_, r) => formatDateTime(r.createdAt, i18n.language), width: 200 },
    { key: 'operation', title: t('records.operation'), render: (_, r) => <code>{r.operation}</code> },
    { key: 'request', title: t('records.request'), render: (_, r) => `${r.method} ${r.path}` },
    {
      key: 'status',
      title: t('records.status'),
      render: (_, r) => <Outcome ok={r.statusCode < 400}>{r.statusCode}</Outcome>,
    },
    { key: 'duration', title: t('records.duration'), render: (_, r) => t('records.ms', { ms: r.durationMs }) },
    { key: 'ip', title: t('records.ip'), dataIndex: 'ip' },
    { key: 'requestId', title: t('records.requestId'), render: (_, r) => <code>{r.requestId}</code> },
  ];
  return (
    <>
      <ExportMine />
      <ErrorMessage error={query.error} />
      <ScrollRegion label={t('tabs.operations')}>
        <Table<Row>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={query.data?.list}
          loading={query.isFetching}
          pagination={pagination(paging, query.data?.total, (count) => t('records.total', { count }))}
          locale={{ emptyText: t('records.empty') }}
        />
      </ScrollRegion>
    </>
  );
}

/**
 * Exports the person's own operation records as CSV through the task center
 * (POST /api/profile/operation-logs/export: no permission, the server limits it to the caller);
 * the task, its progress and its file are then in the header's task drawer, which opens.
 */
function ExportMine() {
  const { t } = useTranslation();
  const feedback = useListFeedback(taskKeys.all);
  const start = useMutation({
    mutationFn: () => unwrap(api.POST('/api/profile/operation-logs/export', { body: {} })),
    onSuccess: () => {
      feedback.done(t('tasks.exportStarted'));
      setTaskDrawerOpen(true);
    },
    onError: feedback.fail,
  });
  return (
    <Flex justify="end" style={{ marginBottom: 12 }}>
      <Button icon={<ExportOutlined />} loading={start.isPending} onClick={() => start.mutate()}>
        {t('tasks.exportMine')}
      </Button>
    </Flex>
  );
}
