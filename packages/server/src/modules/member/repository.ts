import { and, desc, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { members } from './tables.ts';

/** The member module's queries; `scoped` filters every one by the caller's tenant. */
type TenantScope = Pick<Scope, 'tenantId'>;

export type MemberRow = typeof members.$inferSelect;
export type MemberFilter = { keyword?: string; status?: 'active' | 'disabled' };

const tenantMembers = scoped(members);

export const findMember = (db: Db, scope: TenantScope, id: number) => tenantMembers.findById(db, scope, id);

export const findMembers = (db: Db, scope: TenantScope, ids: number[]) =>
  tenantMembers.findMany(db, scope, inArray(members.id, ids));

export function pageMembers(db: Db, scope: TenantScope, page: PageRequest, f: MemberFilter) {
  const conds: SQL[] = [];
  if (f.keyword) {
    const k = f.keyword;
    conds.push(or(contains(members.nickname, k), contains(members.email, k), contains(members.phone, k)) as SQL);
  }
  if (f.status) conds.push(eq(members.status, f.status));
  return tenantMembers.page(db, scope, page, conds.length ? and(...conds) : undefined, desc(members.id));
}

export const insertMember = (db: Db, scope: TenantScope, row: Omit<typeof members.$inferInsert, 'id' | 'tenantId'>) =>
  tenantMembers.insert(db, scope, row);

export const updateMember = (db: Db, scope: TenantScope, id: number, patch: Partial<MemberRow>) =>
  tenantMembers.update(db, scope, id, patch);

/** true when the row existed */
export async function deleteMember(db: Db, scope: TenantScope, id: number): Promise<boolean> {
  const [deleted] = await tenantMembers.deleteMany(db, scope, [id]);
  return deleted !== undefined;
}
