import { Breadcrumb, Button, Dropdown, Layout, Menu, Space, Spin, Typography } from 'antd';
import { Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { ErrorBoundary } from '../../components/error-boundary';
import { ErrorMessage } from '../../components/error-message';
import { PageErrorFallback } from '../../components/page-error';
import { PreferenceSwitches } from '../../components/preference-switches';
import { setReportingUser } from '../error-reporting';
import { useMe } from '../me';
import { useTheme } from '../preferences';
import { signOut } from '../session';
import { NotificationBell } from './bell';
import { menuItems, menuName, menuTrail } from './menu-items';
import { TasksButton } from './tasks-button';

/** The frame of every signed-in page: navigation from the server's menus, breadcrumbs, the person's switches. */
export function Shell() {
  const { t } = useTranslation();
  const me = useMe();
  const theme = useTheme();
  const location = useLocation();
  const navigate = useNavigate();
  const user = me.data?.user;
  // error reports say whose console failed by ids only (docs/decisions/0037)
  useEffect(() => {
    if (user) setReportingUser({ id: user.id, tenantId: user.tenantId });
  }, [user]);
  if (me.isPending) return <Spin fullscreen tip={t('loading')} />;
  if (me.isError) return <ErrorMessage error={me.error} />;
  const menus = me.data.menus;
  const trail = menuTrail(menus, location.pathname);
  const here = trail.at(-1);

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Sider breakpoint="lg" collapsedWidth={0} theme={theme}>
        <Link to="/" style={{ display: 'block', padding: 16, fontWeight: 600, fontSize: 18 }}>
          {t('appName')}
        </Link>
        <nav aria-label={t('home')}>
          <Menu
            mode="inline"
            theme={theme}
            selectedKeys={[here?.path ?? location.pathname]}
            defaultOpenKeys={trail.slice(0, -1).map((n) => n.path)}
            items={menuItems(t, menus)}
            onClick={({ key }) => navigate(key)}
          />
        </nav>
      </Layout.Sider>
      <Layout>
        <Layout.Header
          style={{
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'space-between',
            paddingInline: 16,
            background: 'transparent',
          }}
        >
          <Typography.Text strong>{me.data.tenant?.name ?? ''}</Typography.Text>
          <Space>
            <TasksButton />
            <NotificationBell />
            <PreferenceSwitches />
            {/* opened by a click: a hover-only menu cannot be opened on a touch screen */}
            <Dropdown
              trigger={['click']}
              menu={{
                items: [
                  { key: 'profile', label: <Link to="/profile">{t('profile')}</Link> },
                  { type: 'divider' },
                  { key: 'sign-out', label: t('signOut') },
                ],
                onClick: ({ key }) => {
                  if (key === 'sign-out') void signOut().then(() => navigate('/login', { replace: true }));
                },
              }}
            >
              <Button type="text">{me.data.user.nickname || me.data.user.username}</Button>
            </Dropdown>
          </Space>
        </Layout.Header>
        <Layout.Content style={{ padding: 16 }}>
          <Breadcrumb
            style={{ marginBottom: 16 }}
            items={[
              { title: <Link to="/">{t('home')}</Link> },
              ...trail.map((n) => ({
                // a page below its menu (a detail) links back up to it
                title:
                  n === here && n.path !== location.pathname ? (
                    <Link to={n.path}>{menuName(t, n)}</Link>
                  ) : (
                    menuName(t, n)
                  ),
              })),
            ]}
          />
          <main>
            {/* a page that fails shows why in its place; the menu stays, and another page starts afresh */}
            <ErrorBoundary resetKey={location.pathname} fallback={PageErrorFallback}>
              <Suspense fallback={<Spin tip={t('loading')} />}>
                <Outlet />
              </Suspense>
            </ErrorBoundary>
          </main>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
