import { Tabs, Typography } from 'antd';
import { lazy, Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { MessagesTab } from './messages-tab';

// the announcements and the preferences form load only for those who open their tab
const AnnouncementsTab = lazy(() => import('./announcements-tab'));
const PreferencesTab = lazy(() => import('./preferences-tab'));
const TABS = ['messages', 'announcements', 'preferences'] as const;
type Tab = (typeof TABS)[number];

/** `/notifications`: my in-app messages, my announcements and my notification preferences. */
export default function NotificationsPage() {
  const { t } = useTranslation('notifications');
  const [params, setParams] = useSearchParams();
  const tab: Tab = (TABS as readonly string[]).includes(params.get('tab') ?? '')
    ? (params.get('tab') as Tab)
    : 'messages';
  useEffect(() => {
    document.title = `${t('title')} · ${t('common:appName')}`;
  }, [t]);
  return (
    <>
      <Typography.Title level={1} style={{ fontSize: 22 }}>
        {t('title')}
      </Typography.Title>
      <Tabs
        activeKey={tab}
        onChange={(key) => setParams(key === 'messages' ? {} : { tab: key })}
        destroyOnHidden
        items={[
          { key: 'messages', label: t('tabs.messages'), children: <MessagesTab /> },
          {
            key: 'announcements',
            label: t('tabs.announcements'),
            children: (
              <Suspense>
                <AnnouncementsTab />
              </Suspense>
            ),
          },
          {
            key: 'preferences',
            label: t('tabs.preferences'),
            children: (
              <Suspense>
                <PreferencesTab />
              </Suspense>
            ),
          },
        ]}
      />
    </>
  );
}
