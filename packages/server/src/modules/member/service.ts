import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import type { ContactRow } from '../messaging/index.ts';
import { memberErrors } from './errors.ts';
import * as repo from './repository.ts';

/** Members (customer-side identities), administered by the tenant's console users. */
type TenantScope = Pick<Scope, 'tenantId'>;
type Status = 'active' | 'disabled';

export type Member = repo.MemberRow;
export type MemberCreate = { nickname: string; email?: string | null; phone?: string | null; status?: Status };
export type MemberUpdate = Partial<MemberCreate>;
export type MemberQuery = PageRequest & repo.MemberFilter;

export type MemberService = ReturnType<typeof createMemberService>;

export function createMemberService(deps: { db: Db; clock: () => Date }) {
  const { db } = deps;
  return {
    async get(scope: TenantScope, id: number): Promise<Member> {
      const row = await repo.findMember(db, scope, id);
      if (!row) throw memberErrors.notFound();
      return row;
    },

    list: (scope: TenantScope, q: MemberQuery) => repo.pageMembers(db, scope, q, q),

    create: (scope: TenantScope, input: MemberCreate): Promise<Member> =>
      repo.insertMember(db, scope, {
        nickname: input.nickname,
        email: input.email ?? null,
        phone: input.phone ?? null,
        status: input.status ?? 'active',
      }),

    async update(scope: TenantScope, id: number, input: MemberUpdate): Promise<Member> {
      const row = await repo.updateMember(db, scope, id, { ...input, updatedAt: deps.clock() });
      if (!row) throw memberErrors.notFound();
      return row;
    },

    async remove(scope: TenantScope, id: number): Promise<void> {
      if (!(await repo.deleteMember(db, scope, id))) throw memberErrors.notFound();
    },

    /** Contacts of the given members of one tenant; other tenants' ids are absent. */
    async contacts(scope: TenantScope, ids: number[]): Promise<ContactRow[]> {
      if (ids.length === 0) return [];
      return (await repo.findMembers(db, scope, ids)).map((m) => ({
        id: m.id,
        tenantId: m.tenantId,
        name: m.nickname,
        email: m.email,
        phone: m.phone,
        active: m.status === 'active',
      }));
    },
  };
}
