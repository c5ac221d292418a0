import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** The signed-in person, their tenant, permissions and menus: what shapes the whole shell. */
export function useMe() {
  return useQuery({ queryKey: ['me'], queryFn: () => unwrap(api.GET('/api/auth/me')), staleTime: 60_000 });
}

export type Me = NonNullable<ReturnType<typeof useMe>['data']>;
export type MenuNode = Me['menus'][number];

/** Whether the person holds a permission code (`*` is a super administrator's). */
export function holds(me: Me | undefined, code: string | null | undefined): boolean {
  if (!code) return true;
  if (!me) return false;
  return me.permissions.includes('*') || me.permissions.includes(code);
}
