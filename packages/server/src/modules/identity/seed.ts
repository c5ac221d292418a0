import { eq, isNull, and } from 'drizzle-orm';
import { randomToken } from '../../platform/crypto/digest.ts';
import type { AppContext } from '../../platform/context.ts';
import { hashPassword } from './passwords.ts';
import { tenants, users } from './tables.ts';

export type SeedReport = {
  created: boolean;
  adminUsername: string;
  /** only when this start created the administrator and generated its password */
  generatedPassword: string | null;
  demoTenantCode: string;
};

const DEMO_TENANT = 'demo';

/**
 * First start: a platform super administrator and a demo tenant with its own administrator
 * (same password). Later starts change nothing. The password comes from SEED_ADMIN_PASSWORD,
 * or is generated and printed once.
 */
export async function seedIdentity(ctx: AppContext): Promise<SeedReport> {
  const { db, config } = ctx;
  const username = config.seedAdminUsername;
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(isNull(users.tenantId), eq(users.isSuper, true)))
      .limit(1);
    if (existing) return { created: false, adminUsername: username, generatedPassword: null, demoTenantCode: DEMO_TENANT };

    const generated = config.seedAdminPassword ? null : randomToken(12);
    const hash = await hashPassword(config.seedAdminPassword ?? (generated as string));
    await tx.insert(users).values({ tenantId: null, username, passwordHash: hash, nickname: 'Platform administrator', isSuper: true });
    const [demo] = await tx
      .insert(tenants)
      .values({ code: DEMO_TENANT, name: 'Demo tenant', remark: 'Created at first start' })
      .onConflictDoNothing()
      .returning();
    if (demo) await seedTenantAdmin(ctx, tx, demo.id, username, hash);
    return { created: true, adminUsername: username, generatedPassword: generated, demoTenantCode: DEMO_TENANT };
  });
}

/** A new tenant's first administrator. */
async function seedTenantAdmin(_ctx: AppContext, tx: AppContext['db'], tenantId: number, username: string, hash: string) {
  await tx.insert(users).values({ tenantId, username, passwordHash: hash, nickname: 'Tenant administrator' });
}
