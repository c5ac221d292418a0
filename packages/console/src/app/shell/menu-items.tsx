import type { MenuProps } from 'antd';
import type { TFunction } from 'i18next';
import type { MenuNode } from '../me';

type Item = Required<MenuProps>['items'][number];

/** A menu's name in the person's language, by its path; the stored name when none is known. */
export const menuName = (t: TFunction, node: Pick<MenuNode, 'path' | 'name'>) =>
  t(`menu:${node.path}`, { defaultValue: node.name });

/** The navigation the server sent (RBAC already applied there): directories and pages, hidden ones left out. */
export function menuItems(t: TFunction, nodes: MenuNode[]): Item[] {
  return nodes
    .filter((n) => !n.hidden && n.type !== 'button')
    .sort((a, b) => a.sort - b.sort)
    .map((n) =>
      n.type === 'directory'
        ? { key: n.path, label: menuName(t, n), children: menuItems(t, n.children) }
        : { key: n.path, label: menuName(t, n) },
    );
}

/**
 * The chain of menus down to `path` (breadcrumbs, the open directory, the selected item). A page
 * below a menu (a user's detail at /system/users/12) ends at that menu.
 */
export function menuTrail(nodes: MenuNode[], path: string): MenuNode[] {
  for (let p = path; p.length > 1; p = p.slice(0, p.lastIndexOf('/')) || '/') {
    const trail = exactTrail(nodes, p);
    if (trail.length) return trail;
  }
  return [];
}

function exactTrail(nodes: MenuNode[], path: string): MenuNode[] {
  for (const n of nodes) {
    if (n.path === path) return [n];
    const below = exactTrail(n.children, path);
    if (below.length) return [n, ...below];
  }
  return [];
}
