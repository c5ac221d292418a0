import { useSearchParams } from 'react-router';

/** A list's paging and filters in the URL: every view is a link that reloads the same. */
export function useUrlState<K extends string>(keys: readonly K[]) {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const pageSize = Math.min(200, Math.max(1, Number(params.get('pageSize')) || 20));
  const values = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? undefined])) as Record<K, string | undefined>;
  const update = (changes: Partial<Record<K | 'page' | 'pageSize', string | number | undefined>>) => {
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      // a changed filter starts again from page 1
      if (!('page' in changes)) next.delete('page');
      for (const [k, v] of Object.entries(changes)) {
        if (v === undefined || v === '' || (k === 'page' && v === 1)) next.delete(k);
        else next.set(k, String(v));
      }
      return next;
    });
  };
  return { page, pageSize, values, update };
}

export const readFilter = (state: string | undefined) =>
  state === 'unread' ? false : state === 'read' ? true : undefined;
