import {
  CheckCircleFilled,
  ClockCircleOutlined,
  CloseCircleFilled,
  DownloadOutlined,
  StopOutlined,
  SyncOutlined,
} from '@ant-design/icons';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Drawer, Empty, Flex, Pagination, Progress, Spin, Tag, Typography, theme } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorMessage } from '../../components/error-message';
import { formatDateTime } from '../../components/format';
import {
  cancelTask,
  downloadTaskResult,
  isActive,
  TASK_PAGE_SIZE,
  type TaskItem,
  taskKeys,
  taskPage,
} from './task-calls';

/** While a listed task runs, how often the page is asked again for its progress. */
const PROGRESS_POLL_MS = 1_500;

/** The task drawer: the person's tasks, newest first, a server page at a time; progress, cancel, download. */
export default function TaskDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const tasks = useQuery({
    queryKey: taskKeys.page(page),
    queryFn: () => taskPage(page),
    enabled: open,
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (open && query.state.data?.list.some(isActive) ? PROGRESS_POLL_MS : false),
  });
  const list = tasks.data?.list ?? [];

  return (
    <Drawer title={t('tasks.title')} open={open} onClose={onClose} size={420} data-testid="task-drawer">
      <ErrorMessage error={tasks.error} />
      {tasks.isPending ? <Spin /> : null}
      {!tasks.isPending && list.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tasks.empty')} />
      ) : null}
      <ul aria-label={t('tasks.title')} style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {list.map((task) => (
          <TaskEntry key={task.id} task={task} />
        ))}
      </ul>
      {(tasks.data?.total ?? 0) > TASK_PAGE_SIZE ? (
        <Flex justify="center" style={{ marginTop: 12 }}>
          <Pagination
            simple
            size="small"
            current={page}
            pageSize={TASK_PAGE_SIZE}
            total={tasks.data?.total}
            onChange={setPage}
          />
        </Flex>
      ) : null}
    </Drawer>
  );
}

function TaskEntry({ task }: { task: TaskItem }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const [downloading, setDownloading] = useState(false);
  const cancel = useMutation({
    mutationFn: () => cancelTask(task.id),
    onSettled: () => client.invalidateQueries({ queryKey: taskKeys.all }),
  });
  const name = t('tasks.name', { kind: t(`tasks.kind.${task.kind}`, { defaultValue: task.kind }), id: task.id });

  async function download() {
    setDownloading(true);
    setDownloadError(null);
    try {
      await downloadTaskResult(task);
    } catch (err) {
      setDownloadError(err);
    } finally {
      setDownloading(false);
    }
  }

  return (
    <li
      data-testid="task-item"
      data-status={task.status}
      style={{ padding: '12px 0', borderBottom: '1px solid rgba(128,128,128,.2)' }}
    >
      <Flex justify="space-between" align="start" gap={8}>
        <div style={{ minWidth: 0 }}>
          <Typography.Text strong>{name}</Typography.Text>
          <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
            {t('tasks.createdAt', { time: formatDateTime(task.createdAt, i18n.language) })}
          </Typography.Text>
        </div>
        <TaskStatus status={task.status} />
      </Flex>
      {isActive(task) ? (
        <Progress
          percent={task.progress}
          size="small"
          status="active"
          aria-label={t('tasks.progressOf', { name })}
          style={{ marginTop: 8, marginBottom: 0 }}
        />
      ) : null}
      {task.status === 'queued' && task.error ? (
        // put back to wait out an outage (the server's words are English: ours instead)
        <Typography.Paragraph type="warning" style={{ margin: '8px 0 0' }}>
          {t('tasks.waiting')}
        </Typography.Paragraph>
      ) : null}
      {task.status === 'failed' && task.error ? (
        <Typography.Paragraph type="danger" style={{ margin: '8px 0 0' }}>
          {task.error}
        </Typography.Paragraph>
      ) : null}
      <Flex gap={8} align="center" wrap style={{ marginTop: 8 }}>
        {isActive(task) ? (
          <Button
            size="small"
            danger
            icon={<StopOutlined />}
            aria-label={t('tasks.cancelOf', { name })}
            disabled={task.cancelRequested}
            loading={cancel.isPending}
            onClick={() => cancel.mutate()}
          >
            {task.cancelRequested ? t('tasks.cancelling') : t('tasks.cancel')}
          </Button>
        ) : null}
        {task.resultAvailable ? (
          <>
            <Button
              size="small"
              type="primary"
              icon={<DownloadOutlined />}
              aria-label={t('tasks.downloadOf', { name })}
              loading={downloading}
              onClick={() => void download()}
            >
              {t('tasks.download')}
            </Button>
            {task.resultExpiresAt ? (
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('tasks.keptUntil', { time: formatDateTime(task.resultExpiresAt, i18n.language) })}
              </Typography.Text>
            ) : null}
          </>
        ) : task.status === 'succeeded' ? (
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('tasks.expired')}
          </Typography.Text>
        ) : null}
      </Flex>
      <ErrorMessage error={cancel.error ?? downloadError} />
    </li>
  );
}

/** A status in words on a neutral tag, its colour on the icon only (antd's coloured tags fail contrast). */
function TaskStatus({ status }: { status: TaskItem['status'] }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const icons: Record<TaskItem['status'], ReactNode> = {
    queued: <ClockCircleOutlined style={{ color: token.colorTextSecondary }} />,
    running: <SyncOutlined spin style={{ color: token.colorPrimary }} />,
    succeeded: <CheckCircleFilled style={{ color: token.colorSuccess }} />,
    failed: <CloseCircleFilled style={{ color: token.colorError }} />,
    cancelled: <StopOutlined style={{ color: token.colorTextSecondary }} />,
  };
  return (
    <Tag style={{ marginInlineEnd: 0, flexShrink: 0 }}>
      <span style={{ marginInlineEnd: 6 }}>{icons[status]}</span>
      {t(`tasks.status.${status}`)}
    </Tag>
  );
}
