import type { components } from '../../../api/schema.d.ts';

export type Department = components['schemas']['DepartmentNode'];

/** Every id of a tree, parents before their children. */
export function allIds(nodes: Department[], into: number[] = []): number[] {
  for (const n of nodes) {
    into.push(n.id);
    allIds(n.children, into);
  }
  return into;
}

export function findDepartment(nodes: Department[], id: number): Department | undefined {
  for (const n of nodes) {
    if (n.id === id) return n;
    const below = findDepartment(n.children, id);
    if (below) return below;
  }
  return undefined;
}

/**
 * The departments whose name holds `needle` (lower case), with the departments above them so
 * each keeps its place; a matching department keeps its whole subtree. Empty needle: all.
 */
export function filterTree(nodes: Department[], needle: string): Department[] {
  if (!needle) return nodes;
  return nodes.flatMap((n) => {
    if (n.name.toLowerCase().includes(needle)) return [n];
    const children = filterTree(n.children, needle);
    return children.length ? [{ ...n, children }] : [];
  });
}
