import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { useMe } from '../../app/me';
import { menuName, menuTrail } from '../../app/shell/menu-items';

/**
 * A menu the server sends whose page this release does not have yet: said plainly, with the way
 * to the API that already serves it, rather than a blank screen or a 404.
 */
export default function UnbuiltPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const me = useMe();
  const node = menuTrail(me.data?.menus ?? [], location.pathname).at(-1);
  if (!node) {
    return (
      <Result
        status="404"
        title={t('notFound.title')}
        subTitle={t('notFound.body')}
        extra={<Button href="/">{t('notFound.back')}</Button>}
      />
    );
  }
  return (
    <Result
      status="info"
      title={t('unbuilt.title')}
      subTitle={t('unbuilt.body', { name: menuName(t, node) })}
      extra={
        <Button href="/api/docs" target="_blank" rel="noopener">
          {t('unbuilt.apiReference')}
        </Button>
      }
    />
  );
}
