import { BellOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Popover, Spin } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLiveStatus } from '../live';
import { announcementUnreadCount, bellKeys, inappUnreadCount } from './notification-calls';

// the list opens on demand: the shell carries only the count
const BellPanel = lazy(() => import('./bell-panel'));

/** The header's bell: unread in-app messages and announcements together, kept live by the hub. */
export function NotificationBell() {
  const { t } = useTranslation('notifications');
  const [open, setOpen] = useState(false);
  const live = useLiveStatus();
  const inapp = useQuery({ queryKey: bellKeys.inappUnread, queryFn: inappUnreadCount });
  const announcements = useQuery({ queryKey: bellKeys.announcementUnread, queryFn: announcementUnreadCount });
  const count = (inapp.data?.count ?? 0) + (announcements.data?.count ?? 0);
  const label = [t('bell.label', { count }), live === 'waiting' ? t('bell.reconnecting') : null]
    .filter(Boolean)
    .join(', ');

  return (
    <Popover
      trigger="click"
      placement="bottomRight"
      open={open}
      onOpenChange={setOpen}
      arrow={false}
      content={
        <Suspense fallback={<Spin size="small" />}>
          {open ? <BellPanel onClose={() => setOpen(false)} /> : null}
        </Suspense>
      }
    >
      <Button
        type="text"
        aria-label={label}
        aria-haspopup="dialog"
        aria-expanded={open}
        data-testid="notification-bell"
        icon={
          <Badge count={count} size="small" overflowCount={99} dot={false} data-testid="notification-count">
            <BellOutlined style={{ fontSize: 18, opacity: live === 'waiting' ? 0.5 : 1 }} />
          </Badge>
        }
      />
    </Popover>
  );
}
