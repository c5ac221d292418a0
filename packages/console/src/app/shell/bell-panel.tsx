import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Empty, Flex, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { ErrorMessage } from '../../components/error-message';
import {
  bellKeys,
  latestAnnouncements,
  latestMessages,
  linkTarget,
  readAll,
  readAnnouncement,
  readMessage,
} from './notification-calls';

/** The bell's dropdown: the latest messages and unread announcements, read one or all, the inbox. */
export default function BellPanel({ onClose }: { onClose: () => void }) {
  const { t, i18n } = useTranslation('notifications');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const messages = useQuery({ queryKey: bellKeys.inappLatest, queryFn: latestMessages });
  const announcements = useQuery({ queryKey: bellKeys.announcementLatest, queryFn: latestAnnouncements });
  const refreshAll = () => queryClient.invalidateQueries({ queryKey: ['notifications'] });
  const read = useMutation({
    mutationFn: async (item: { kind: 'inapp' | 'announcement'; id: number }) => {
      await (item.kind === 'inapp' ? readMessage(item.id) : readAnnouncement(item.id));
    },
    onSettled: refreshAll,
  });
  const all = useMutation({ mutationFn: readAll, onSettled: refreshAll });
  const when = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'short' });

  const open = (id: number, isRead: boolean, link: string | null) => {
    if (!isRead) read.mutate({ kind: 'inapp', id });
    const target = linkTarget(link);
    if (!target) return;
    onClose();
    if ('route' in target) navigate(target.route);
    else window.open(target.href, '_blank', 'noopener');
  };

  const items = messages.data?.list ?? [];
  const notices = announcements.data?.list ?? [];
  return (
    <section aria-label={t('bell.title')} style={{ width: 340, maxWidth: '80vw' }}>
      <Flex justify="space-between" align="center" style={{ marginBottom: 8 }}>
        <Typography.Text strong>{t('bell.title')}</Typography.Text>
        <Button size="small" type="link" loading={all.isPending} onClick={() => all.mutate()}>
          {t('actions.readAll')}
        </Button>
      </Flex>
      <ErrorMessage error={messages.error ?? announcements.error ?? read.error ?? all.error} />
      {messages.isPending ? <Spin size="small" /> : null}
      {!messages.isPending && items.length === 0 && notices.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('bell.empty')} />
      ) : null}
      <ul aria-label={t('tabs.messages')} style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {items.map((m) => (
          <li
            key={m.id}
            data-testid="bell-item"
            style={{ padding: '6px 0', borderBottom: '1px solid rgba(128,128,128,.2)' }}
          >
            <Flex justify="space-between" gap={8} align="start">
              <div style={{ minWidth: 0 }}>
                {linkTarget(m.link) ? (
                  <Button
                    type="link"
                    size="small"
                    style={{
                      padding: 0,
                      height: 'auto',
                      fontWeight: m.isRead ? 400 : 600,
                      whiteSpace: 'normal',
                      textAlign: 'start',
                    }}
                    onClick={() => open(m.id, m.isRead, m.link)}
                  >
                    {m.isRead ? m.title : t('unreadTitle', { title: m.title })}
                  </Button>
                ) : (
                  <Typography.Text strong={!m.isRead}>
                    {m.isRead ? m.title : t('unreadTitle', { title: m.title })}
                  </Typography.Text>
                )}
                <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
                  {when.format(new Date(m.createdAt))}
                </Typography.Text>
              </div>
              {m.isRead ? null : (
                <Button
                  size="small"
                  aria-label={t('actions.markReadOf', { title: m.title })}
                  onClick={() => read.mutate({ kind: 'inapp', id: m.id })}
                >
                  {t('actions.markRead')}
                </Button>
              )}
            </Flex>
          </li>
        ))}
      </ul>
      {notices.length > 0 ? (
        <>
          <Typography.Text strong style={{ display: 'block', marginTop: 8 }}>
            {t('tabs.announcements')}
          </Typography.Text>
          <ul aria-label={t('tabs.announcements')} style={{ listStyle: 'none', margin: 0, padding: 0 }}>
            {notices.map((a) => (
              <li key={a.id} style={{ padding: '6px 0' }}>
                <Flex justify="space-between" gap={8} align="start">
                  <Link to={`/notifications?tab=announcements&open=${a.id}`} onClick={onClose}>
                    {a.title}
                  </Link>
                  <Button
                    size="small"
                    aria-label={t('actions.markReadOf', { title: a.title })}
                    onClick={() => read.mutate({ kind: 'announcement', id: a.id })}
                  >
                    {t('actions.markRead')}
                  </Button>
                </Flex>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <Flex justify="end" style={{ marginTop: 8 }}>
        <Link to="/notifications" onClick={onClose}>
          {t('bell.viewAll')}
        </Link>
      </Flex>
    </section>
  );
}
