import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { menuName } from '../../../app/shell/menu-items';

export type MenuTreeNode = {
  id: number;
  parentId: number | null;
  type: 'directory' | 'menu' | 'button';
  name: string;
  path: string;
  component: string;
  icon: string;
  permission: string | null;
  sort: number;
  hidden: boolean;
  status: 'active' | 'disabled';
  children: MenuTreeNode[];
};

export function useMenuTree() {
  const may = useMayCall();
  return useQuery({
    queryKey: ['identity', 'menus', 'tree'],
    queryFn: () => unwrap(api.GET('/api/menus')) as Promise<MenuTreeNode[]>,
    enabled: may('identity.menu.tree'),
    staleTime: 30_000,
  });
}

/** A menu node's name in the person's language (by path), its stored name otherwise. */
export const nodeName = (t: TFunction, n: MenuTreeNode) => (n.path ? menuName(t, n) : n.name);

export type TreeData = { key: string | number; title: string; children?: TreeData[] };

export function menuTreeData(t: TFunction, nodes: MenuTreeNode[]): TreeData[] {
  return nodes.map((n) => ({
    key: n.id,
    title: n.permission && n.type === 'button' ? `${nodeName(t, n)} (${n.permission})` : nodeName(t, n),
    children: menuTreeData(t, n.children),
  }));
}
