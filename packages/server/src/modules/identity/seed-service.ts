import type { AppContext } from '../../platform/context.ts';
import { randomToken } from '../../platform/crypto/digest.ts';
import { hashPassword } from '../../platform/crypto/passwords.ts';
import type { Db } from '../../platform/db/client.ts';
import { anyMenu, insertMenu } from './menus-repository.ts';
import { MENU_TREE, type SeedNode } from './seed-menus.ts';
import { insertPlatformSuper, platformSuperExists } from './seed-repository.ts';
import { insertTenantIfAbsent } from './tenants-repository.ts';
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

/** Seeds the menu tree when the menu table is empty; afterwards it is data, edited through /api/menus. */
async function seedMenus(tx: Db): Promise<void> {
  if (await anyMenu(tx)) return;
  const insert = async (nodes: SeedNode[], parentId: number | null) => {
    for (const [i, n] of nodes.entries()) {
      const row = await insertMenu(tx, {
        parentId,
        type: n.type,
        name: n.name,
        path: n.path ?? '',
        component: n.component ?? '',
        icon: n.icon ?? '',
        permission: n.permission ?? null,
        sort: (i + 1) * 10,
        hidden: n.hidden ?? false,
      });
      if (n.children?.length) await insert(n.children, row.id);
    }
  };
  await insert(MENU_TREE, null);
}

/**
 * First start: the menu tree, a platform super administrator and a demo tenant whose
 * administrator holds the `tenant-admin` role (same password). Later starts change nothing.
 * The password comes from SEED_ADMIN_PASSWORD, or is generated and printed once.
 * `permissionCodes` is the app's registry (`app.permissionCodes`), given to the demo role.
 */
export async function seedIdentity(
  { db, database, config, clock }: Pick<AppContext, 'db' | 'database' | 'config' | 'clock'>,
  permissionCodes: Iterable<string>,
): Promise<SeedReport> {
  const username = config.seedAdminUsername;
  return database.withAdvisoryLock(SEED_LOCK, () =>
    db.transaction(async (tx) => {
      await seedMenus(tx);
      if (await platformSuperExists(tx)) {
        return { created: false, adminUsername: username, generatedPassword: null, demoTenantCode: DEMO_TENANT };
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
          permissionCodes,
          now: clock(),
        });
      }
      return { created: true, adminUsername: username, generatedPassword: generated, demoTenantCode: DEMO_TENANT };
    }),
  );
}
