/** Builds a sorted tree from flat rows with parentId; rows whose parent is absent become roots. */
export type TreeNode<T> = T & { children: TreeNode<T>[] };

export function buildTree<T extends { id: number; parentId: number | null; sort: number }>(rows: T[]): TreeNode<T>[] {
  const nodes = new Map<number, TreeNode<T>>();
  for (const r of rows) nodes.set(r.id, { ...r, children: [] });
  const roots: TreeNode<T>[] = [];
  for (const n of nodes.values()) {
    const parent = n.parentId === null ? undefined : nodes.get(n.parentId);
    (parent ? parent.children : roots).push(n);
  }
  const sort = (list: TreeNode<T>[]) => {
    list.sort((a, b) => a.sort - b.sort || a.id - b.id);
    for (const n of list) sort(n.children);
  };
  sort(roots);
  return roots;
}
