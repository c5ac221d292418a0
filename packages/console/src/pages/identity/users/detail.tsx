import { ArrowLeftOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Result, Spin, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useParams, useSearchParams } from 'react-router';
import { ApiCallError, api, unwrap } from '../../../api/client';
import { ErrorMessage } from '../../../components/error-message';
import { PageTitle } from '../../../components/list-page';
import { fetchEffective } from './effective';
import { EffectivePermissions } from './effective-permissions';
import { UserFields } from './user-fields';
import { VisibleMenus } from './visible-menus';

const TABS = ['details', 'permissions', 'menus'] as const;
type Tab = (typeof TABS)[number];
/** The largest id the API takes (int4): anything else is no user, asked of nobody. */
const MAX_ID = 2_147_483_647;

/**
 * `/system/users/:id`: one user — details, "what this person can do" (each permission code with
 * the roles that grant it, docs/decisions/0035) and the menus they see. The tab is in the URL, so
 * a view can be linked and reloaded; "back" returns to the list as it was left (its filters).
 */
export default function UserDetailPage() {
  const { t } = useTranslation('identity');
  const params = useParams();
  const location = useLocation();
  const [search, setSearch] = useSearchParams();
  const id = Number(params.id);
  const valid = /^[1-9][0-9]*$/.test(params.id ?? '') && id <= MAX_ID;
  const asked = search.get('tab');
  const tab: Tab = (TABS as readonly string[]).includes(asked ?? '') ? (asked as Tab) : 'details';
  const user = useQuery({
    queryKey: ['identity', 'users', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/users/{id}', { params: { path: { id } } })),
    enabled: valid,
  });
  const effective = useQuery({
    queryKey: ['identity', 'users', 'permissions', id],
    queryFn: () => fetchEffective(id),
    enabled: valid,
  });
  const back = (location.state as { list?: string } | null)?.list ?? '';
  const backLink = (
    <Link to={`/system/users${back}`}>
      <ArrowLeftOutlined aria-hidden /> {t('effective.back')}
    </Link>
  );
  const missing = (e: unknown) => e instanceof ApiCallError && e.body.code === 404;
  if (!valid || missing(user.error))
    return <Result status="404" title={<h1 style={{ fontSize: 22 }}>{t('effective.notFound')}</h1>} extra={backLink} />;

  return (
    <>
      {backLink}
      <PageTitle>{t('effective.title', { name: user.data?.username ?? id })}</PageTitle>
      <ErrorMessage error={user.error ?? effective.error} />
      {user.isPending || effective.isPending ? <Spin /> : null}
      {user.data && effective.data ? (
        <Tabs
          activeKey={tab}
          onChange={(key) => setSearch(key === 'details' ? {} : { tab: key }, { replace: true, state: location.state })}
          items={[
            {
              key: 'details',
              label: t('effective.tabs.details'),
              children: <UserFields user={user.data} roles={effective.data.roles} />,
            },
            {
              key: 'permissions',
              label: t('effective.tabs.permissions'),
              children: <EffectivePermissions data={effective.data} />,
            },
            {
              key: 'menus',
              label: t('effective.tabs.menus'),
              children: <VisibleMenus menus={effective.data.menus} />,
            },
          ]}
        />
      ) : null}
    </>
  );
}
