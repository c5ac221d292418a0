import { FolderOutlined, ProfileOutlined } from '@ant-design/icons';
import { Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { menuName } from '../../../app/shell/menu-items';
import type { Effective } from './effective';

type Node = Effective['menus'][number];

/** The navigation as the shell draws it: directories and pages, hidden ones and buttons left out. */
const shown = (nodes: Node[]) => nodes.filter((n) => !n.hidden && n.type !== 'button');

/** The menus the user sees once signed in: a plain nested list (light, read by screen readers as one). */
export function VisibleMenus({ menus }: { menus: Node[] }) {
  const { t } = useTranslation('identity');
  const list = (nodes: Node[], depth: number) => (
    <ul style={{ listStyle: 'none', margin: 0, paddingInlineStart: depth ? 24 : 0 }}>
      {shown(nodes).map((n) => (
        <li key={n.id} style={{ padding: '4px 0' }}>
          {n.type === 'directory' ? <FolderOutlined aria-hidden /> : <ProfileOutlined aria-hidden />}{' '}
          <span>{menuName(t, n)}</span>
          {n.children.length ? list(n.children, depth + 1) : null}
        </li>
      ))}
    </ul>
  );
  if (!shown(menus).length) return <Empty description={t('effective.noMenus')} />;
  return (
    <>
      <Typography.Paragraph>{t('effective.menusHelp')}</Typography.Paragraph>
      {list(menus, 0)}
    </>
  );
}
