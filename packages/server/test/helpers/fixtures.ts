import { randomBytes } from 'node:crypto';
import { roles, userRoles, users } from '../../src/modules/identity/tables.ts';
import { hashPassword } from '../../src/platform/crypto/passwords.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import { tenants } from '../../src/platform/tenancy/tables.ts';
import { login, type TestApp } from './app.ts';

/**
 * Fixtures for tenant and permission tests. They write the identity tables directly (a test
 * setup, not the behaviour under test) and sign in through the real login route.
 */
export const USER_PASSWORD = 'User#Pass2026';
let passwordHash: Promise<string> | null = null;
const hashOnce = () => (passwordHash ??= hashPassword(USER_PASSWORD));

export type TenantFixture = { tenantId: number; code: string; adminUserId: number; adminToken: string };

/** A tenant with an administrator that holds every permission code given (default: none → use super-like role). */
export async function createTenant(
  t: TestApp,
  code = `t${randomBytes(3).toString('hex')}`,
  permissions?: string[],
): Promise<TenantFixture> {
  const db = t.database.db;
  const [tenant] = await db
    .insert(tenants)
    .values({ code, name: `Tenant ${code}` })
    .returning();
  if (!tenant) throw new Error('tenant insert failed');
  const user = await createUser(t, tenant.id, code, 'admin', permissions ?? allTenantPermissions(t));
  return { tenantId: tenant.id, code, adminUserId: user.userId, adminToken: user.token };
}

/** A user of the demo tenant (or any tenant) holding exactly these permission codes. */
export async function createUserWithPermissions(
  t: TestApp,
  permissions: string[],
  opts: { tenantId?: number; tenantCode?: string } = {},
): Promise<{ userId: number; token: string; username: string }> {
  const tenantId = opts.tenantId ?? t.demoTenantId;
  const code = opts.tenantCode ?? 'demo';
  return createUser(t, tenantId, code, `u${randomBytes(4).toString('hex')}`, permissions);
}

/** A platform user (no tenant) holding exactly these permission codes, not a super administrator. */
export function createPlatformUserWithPermissions(t: TestApp, permissions: string[]) {
  return createUser(t, null, undefined, `p${randomBytes(4).toString('hex')}`, permissions);
}

async function createUser(
  t: TestApp,
  tenantId: number | null,
  tenantCode: string | undefined,
  username: string,
  permissions: string[],
) {
  const db = t.database.db;
  const [user] = await db
    .insert(users)
    .values({ tenantId: platformKey(tenantId), username, passwordHash: await hashOnce(), nickname: username })
    .returning();
  if (!user) throw new Error('user insert failed');
  if (permissions.length) {
    const [role] = await db
      .insert(roles)
      .values({ tenantId: platformKey(tenantId), code: `r-${username}`, name: `Role of ${username}`, permissions })
      .returning();
    if (!role) throw new Error('role insert failed');
    await db.insert(userRoles).values({ tenantId: platformKey(tenantId), userId: user.id, roleId: role.id });
  }
  const token = await login(t.app, username, USER_PASSWORD, tenantCode);
  return { userId: user.id, token, username };
}

/** Every permission code a route declares, except platform-only ones. */
export function allTenantPermissions(t: TestApp): string[] {
  const codes = new Set<string>();
  for (const code of t.app.permissionCodes) if (!code.startsWith('platform:')) codes.add(code);
  return [...codes];
}

/**
 * The two-tenant setup of tenant tests: another tenant with its administrator (its rows must stay
 * invisible to the demo tenant, and the other way round), and a demo-tenant user holding no permission.
 */
export async function twoTenants(
  t: TestApp,
): Promise<{ other: TenantFixture; nobody: { userId: number; token: string } }> {
  const other = await createTenant(t);
  const nobody = await createUserWithPermissions(t, []);
  return { other, nobody };
}
