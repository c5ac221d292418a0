import { and, desc, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import { members } from './tables.ts';

/** Members (customer-side identities), administered by the tenant's console users. */
type TenantScope = Pick<Scope, 'tenantId'>;
type Status = 'active' | 'disabled';

const tenantMembers = scoped(members);

export type Member = typeof members.$inferSelect;
export type MemberCreate = { nickname: string; email?: string | null; phone?: string | null; status?: Status };
export type MemberUpdate = Partial<MemberCreate>;
export type MemberQuery = PageRequest & { keyword?: string; status?: Status };

export const memberErrors = {
  notFound: () => httpErrors.notFound('member.member_not_found', 'Member'),
};

/** A member of the scope's tenant, or null: for other modules (notifications, monitoring). */
export async function findMember(db: Db, scope: TenantScope, id: number): Promise<Member | null> {
  return tenantMembers.findById(db, scope, id);
}

export async function getMember(db: Db, scope: TenantScope, id: number): Promise<Member> {
  const row = await findMember(db, scope, id);
  if (!row) throw memberErrors.notFound();
  return row;
}

export async function listMembers(db: Db, scope: TenantScope, q: MemberQuery) {
  const conds: SQL[] = [];
  if (q.keyword) {
    conds.push(
      or(
        contains(members.nickname, q.keyword),
        contains(members.email, q.keyword),
        contains(members.phone, q.keyword),
      ) as SQL,
    );
  }
  if (q.status) conds.push(eq(members.status, q.status));
  return tenantMembers.page(db, scope, q, conds.length ? and(...conds) : undefined, desc(members.id));
}

export async function createMember(db: Db, scope: TenantScope, input: MemberCreate): Promise<Member> {
  return tenantMembers.insert(db, scope, {
    nickname: input.nickname,
    email: input.email ?? null,
    phone: input.phone ?? null,
    status: input.status ?? 'active',
  });
}

export async function updateMember(
  db: Db,
  scope: TenantScope,
  id: number,
  input: MemberUpdate,
  now: Date,
): Promise<Member> {
  const row = await tenantMembers.update(db, scope, id, { ...input, updatedAt: now });
  if (!row) throw memberErrors.notFound();
  return row;
}

export async function deleteMember(db: Db, scope: TenantScope, id: number): Promise<void> {
  const [deleted] = await tenantMembers.deleteMany(db, scope, [id]);
  if (deleted === undefined) throw memberErrors.notFound();
}

/** Contacts of the given members of one tenant, for the notification center; other tenants' ids are absent. */
export async function memberContacts(db: Db, scope: TenantScope, ids: number[]) {
  if (ids.length === 0) return [];
  const rows = await tenantMembers.findMany(db, scope, inArray(members.id, ids));
  return rows.map((m) => ({
    id: m.id,
    tenantId: m.tenantId,
    name: m.nickname,
    email: m.email,
    phone: m.phone,
    active: m.status === 'active',
  }));
}
