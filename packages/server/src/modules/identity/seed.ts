import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.ts';
import { randomToken } from '../../platform/crypto/digest.ts';
import { hashPassword } from './passwords.ts';
import { seedMenus } from './seed-menus.ts';
import { tenants, users } from './tables.ts';
import { provisionTenantAdmin } from './tenants-service.ts';

export type SeedReport = {
  created: boolean;
  adminUsername: string;
  /** only when this start created the administrator and generated its password */
  generatedPassword: string | null;
  demoTenantCode: string;
};

const DEMO_TENANT = 'demo';
const SEED_LOCK = 0x61747364; // "atsd": instances starting together seed one at a time

/**
 * First start: the menu tree, a platform super administrator and a demo tenant whose
 * administrator holds the `tenant-admin` role (same password). Later starts change nothing.
 * The password comes from SEED_ADMIN_PASSWORD, or is generated and printed once.
 * `permissionCodes` is the app's registry (`app.permissionCodes`), given to the demo role.
 */
export async function seedIdentity(ctx: AppContext, permissionCodes: Iterable<string>): Promise<SeedReport> {
  const { db, config } = ctx;
  const username = config.seedAdminUsername;
  return ctx.database.withAdvisoryLock(SEED_LOCK, () =>
    db.transaction(async (tx) => {
      await seedMenus(tx);
      const [existing] = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(isNull(users.tenantId), eq(users.isSuper, true)))
        .limit(1);
      if (existing) {
        return { created: false, adminUsername: username, generatedPassword: null, demoTenantCode: DEMO_TENANT };
      }

      const generated = config.seedAdminPassword ? null : randomToken(12);
      const hash = await hashPassword(config.seedAdminPassword ?? (generated as string));
      await tx
        .insert(users)
        .values({ tenantId: null, username, passwordHash: hash, nickname: 'Platform administrator', isSuper: true });
      const [demo] = await tx
        .insert(tenants)
        .values({ code: DEMO_TENANT, name: 'Demo tenant', remark: 'Created at first start' })
        .onConflictDoNothing()
        .returning();
      if (demo) {
        const now = ctx.clock();
        await provisionTenantAdmin(tx, { tenantId: demo.id, username, passwordHash: hash, permissionCodes, now });
      }
      return { created: true, adminUsername: username, generatedPassword: generated, demoTenantCode: DEMO_TENANT };
    }),
  );
}
