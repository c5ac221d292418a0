import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { mayCall, type OperationId } from '../api/permissions';

/** The signed-in person, their tenant, permissions and menus: what shapes the whole shell. */
export function useMe() {
  return useQuery({ queryKey: ['me'], queryFn: () => unwrap(api.GET('/api/auth/me')), staleTime: 60_000 });
}

export type Me = NonNullable<ReturnType<typeof useMe>['data']>;
export type MenuNode = Me['menus'][number];

/**
 * Whether the signed-in person may call an operation, by the generated operation → permission map
 * (api/permissions.ts): what shows or hides a button. The server's 403 stays the guard.
 */
export function useMayCall(): (operation: OperationId, params?: Record<string, string | number>) => boolean {
  const me = useMe();
  const granted = new Set(me.data?.permissions ?? []);
  return (operation, params) => me.data !== undefined && mayCall(operation, granted, params);
}
