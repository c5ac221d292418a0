import { api, unwrap } from '../../../api/client';

/** What a user can do and which role gives it (GET /api/users/{id}/permissions, docs/decisions/0035). */
export const fetchEffective = (id: number) =>
  unwrap(api.GET('/api/users/{id}/permissions', { params: { path: { id } } }));
export type Effective = Awaited<ReturnType<typeof fetchEffective>>;
