import { describe, expect, it } from 'vitest';
import type { MenuRow } from './menus-repository.ts';
import { MENU_TREE, type SeedNode } from './seed-menus.ts';
import { planMenus, seedKey } from './seed-upgrades.ts';

const tree: SeedNode[] = [
  {
    name: 'Reports',
    type: 'directory',
    path: '/reports',
    children: [
      {
        name: 'Sales',
        type: 'menu',
        path: '/reports/sales',
        children: [{ name: 'Export', type: 'button', permission: 'report:sales:export' }],
      },
    ],
  },
];

let nextId = 1;
function row(m: Partial<MenuRow> & Pick<MenuRow, 'type' | 'name'>): MenuRow {
  const now = new Date(0);
  return {
    id: nextId++,
    parentId: null,
    path: '',
    component: '',
    icon: '',
    permission: null,
    sort: 0,
    hidden: false,
    status: 'active',
    createdAt: now,
    updatedAt: now,
    ...m,
  };
}

describe('planMenus', () => {
  it('gives every node of the built-in tree a distinct key', () => {
    const keys: string[] = [];
    const walk = (nodes: SeedNode[], parentKey: string | null) => {
      for (const n of nodes) {
        const key = seedKey(n, parentKey);
        keys.push(key);
        walk(n.children ?? [], key);
      }
    };
    walk(MENU_TREE, null);
    expect(keys.filter((k) => k === '' || k.startsWith('#'))).toEqual([]);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('adds everything to an empty table, children under their new parents, and marks it', () => {
    const plan = planMenus(tree, [], new Set());
    expect(plan.added.map((m) => [m.id, m.parentId, m.name])).toEqual([
      [-1, null, 'Reports'],
      [-2, -1, 'Sales'],
      [-3, -2, 'Export'],
    ]);
    expect(plan.marks).toEqual(['/reports', '/reports/sales', '/reports/sales#report:sales:export']);
  });

  it('marks unmarked nodes that match existing rows (path; code under the matched parent) without adding them', () => {
    const dir = row({ type: 'directory', name: 'Old name', path: '/reports' });
    const sales = row({ type: 'menu', name: 'Sales', path: '/reports/sales', parentId: dir.id });
    const other = row({ type: 'button', name: 'Export', permission: 'report:sales:export', parentId: dir.id });
    const plan = planMenus(tree, [dir, sales, other], new Set());
    expect(plan.added.map((m) => [m.parentId, m.name])).toEqual([[sales.id, 'Export']]);
    expect(plan.marks).toHaveLength(3);
  });

  it('never re-adds a marked node that was deleted, nor its children, even unmarked ones', () => {
    expect(planMenus(tree, [], new Set(['/reports']))).toEqual({ added: [], marks: [] });
    const dir = row({ type: 'directory', name: 'Reports', path: '/reports' });
    const plan = planMenus(tree, [dir], new Set(['/reports', '/reports/sales#report:sales:export']));
    expect(plan.added.map((m) => m.name)).toEqual(['Sales']);
    expect(plan.marks).toEqual(['/reports/sales']);
  });
});
