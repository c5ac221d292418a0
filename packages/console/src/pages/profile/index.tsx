import { Spin, Tabs, Typography } from 'antd';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { Details } from './details';
import { PasswordChange } from './password-change';

// the records' tables are a chunk of their own: the details and the password form load without them
const LoginRecords = lazy(() => import('./records').then((m) => ({ default: m.LoginRecords })));
const OperationRecords = lazy(() => import('./records').then((m) => ({ default: m.OperationRecords })));

const TABS = ['details', 'password', 'logins', 'operations'] as const;
type Tab = (typeof TABS)[number];

/**
 * `/profile` (a hidden menu of the seed): the signed-in person's details, their password, and
 * their own sign-in and operation records. The tab and the records' page are in the URL, so a
 * view can be reloaded and shared.
 */
export default function ProfilePage() {
  const { t } = useTranslation('profile');
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const loading = <Spin tip={t('common:loading')} />;
  const tab: Tab = (TABS as readonly string[]).includes(asked ?? '') ? (asked as Tab) : 'details';

  return (
    <>
      <Typography.Title level={1} style={{ fontSize: 22 }}>
        {t('title')}
      </Typography.Title>
      <Tabs
        activeKey={tab}
        // a new tab starts at its first page: the page number belongs to the tab that was left
        onChange={(key) => setParams(key === 'details' ? {} : { tab: key })}
        destroyOnHidden
        items={[
          { key: 'details', label: t('tabs.details'), children: <Details /> },
          { key: 'password', label: t('tabs.password'), children: <PasswordChange /> },
          {
            key: 'logins',
            label: t('tabs.logins'),
            children: (
              <Suspense fallback={loading}>
                <LoginRecords />
              </Suspense>
            ),
          },
          {
            key: 'operations',
            label: t('tabs.operations'),
            children: (
              <Suspense fallback={loading}>
                <OperationRecords />
              </Suspense>
            ),
          },
        ]}
      />
    </>
  );
}
