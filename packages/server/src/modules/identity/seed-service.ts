import type { AppContext } from '../../platform/context.ts';
import { randomToken } from '../../platform/crypto/digest.ts';
import { hashPassword, verifyPassword } from '../../platform/crypto/passwords.ts';
import { MENU_TREE } from './seed-menus.ts';
import { insertPlatformSuper, platformSuperExists, platformUserPasswordHash } from './seed-repository.ts';
import { applyCatalogue, type CatalogueReport } from './seed-upgrades.ts';
import { invalidatePermissions } from './sessions.ts';
import { insertTenantIfAbsent } from './tenants-repository.ts';
import { provisionTenantAdmin } from './tenants-service.ts';

export type SeedReport = {
  created: boolean;
  adminUsername: string;
  /** only when this start created the administrator and generated its password */
  generatedPassword: string | null;
  /**
   * SEED_ADMIN_PASSWORD is set, the administrator existed already, and its password is another
   * one: the variable only counts at the first start, and the operator should hear so.
   */
  seedPasswordIgnored: boolean;
  demoTenantCode: string;
  /** what this start added of the built-in menus and tenant codes (seed-upgrades.ts) */
  applied: CatalogueReport;
};

/** the tenant the first start creates, whose administrator shares the platform administrator's name and password */
export const DEMO_TENANT = 'demo';
const SEED_LOCK = 0x61747364; // "atsd": instances starting together seed one at a time

/**
 * Every start: the menus and tenant codes of the built-in catalogue this install has not applied
 * yet (seed-upgrades.ts). First start: also a platform super administrator and a demo tenant whose
 * administrator holds the `tenant-admin` role (same password).
 * The password comes from SEED_ADMIN_PASSWORD, or is generated and printed once.
 * `permissionCodes` is the app's registry (`app.permissionCodes`): the tenant codes come from it.
 */
export async function seedIdentity(
  { db, database, cache, config, clock }: Pick<AppContext, 'db' | 'database' | 'cache' | 'config' | 'clock'>,
  permissionCodes: Iterable<string>,
): Promise<SeedReport> {
  const username = config.seedAdminUsername;
  const codes = [...permissionCodes]; // read twice below: a one-shot iterable would be empty the second time
  return database.withAdvisoryLock(SEED_LOCK, async () => {
    const report = await db.transaction(async (tx) => {
      const applied = await applyCatalogue(tx, MENU_TREE, codes, clock());
      if (await platformSuperExists(tx)) {
        return {
          created: false,
          adminUsername: username,
          generatedPassword: null,
          seedPasswordIgnored: false,
          demoTenantCode: DEMO_TENANT,
          applied,
        };
      }

      const generated = config.seedAdminPassword ? null : randomToken(12);
      const hash = await hashPassword(config.seedAdminPassword ?? (generated as string));
      await insertPlatformSuper(tx, username, hash);
      const demo = await insertTenantIfAbsent(tx, {
        code: DEMO_TENANT,
        name: 'Demo tenant',
        remark: 'Created at first start',
      });
      if (demo) {
        await provisionTenantAdmin(tx, {
          tenantId: demo.id,
          username,
          passwordHash: hash,
          permissionCodes: codes,
          now: clock(),
        });
      }
      return {
        created: true,
        adminUsername: username,
        generatedPassword: generated,
        seedPasswordIgnored: false,
        demoTenantCode: DEMO_TENANT,
        applied,
      };
    });
    // Signed-in holders of the roles get what was added at their next request, on every instance.
    if (report.applied.menusAdded || report.applied.codesAdded) await invalidatePermissions(cache);
    if (!report.created && config.seedAdminPassword) {
      const hash = await platformUserPasswordHash(db, username);
      report.seedPasswordIgnored = hash !== null && !(await verifyPassword(hash, config.seedAdminPassword));
    }
    return report;
  });
}
