import { systemScope } from '../../../platform/auth/principal.ts';
import type { DriveCore } from '../core.ts';
import { findNodes } from '../nodes/node-repository.ts';
import type { DriveSettings } from '../settings.ts';
import * as repo from './reminders-repository.ts';

const HOUR_MS = 3_600_000;
/** Grants claimed (and reminded) per round. */
const BATCH = 500;

/**
 * Temporary-grant expiry reminders (system task `drive.grantExpiryReminders`): a grant that
 * expires within the tenant's shareExpiryReminderHours is announced once
 * (`drive.grant.expiring`) to the users its subject stands for. Changing a grant's expiry
 * clears reminded_at (grants-service), which arms the reminder again.
 */
export function createRemindersService(core: Pick<DriveCore, 'db' | 'settings' | 'directory' | 'notify'>) {
  const { db, directory } = core;

  /** Reminds one claimed batch; answers how many grants reached at least one user. */
  async function remind(tenantId: number | null, grants: repo.ClaimedGrant[]): Promise<number> {
    const scope = systemScope(tenantId);
    const nodes = new Map(
      (await findNodes(db, scope, [...new Set(grants.map((g) => g.nodeId))])).map((n) => [n.id, n]),
    );
    const spaces = new Map(
      (await repo.findSpaces(db, scope, [...new Set(grants.map((g) => g.spaceId))])).map((s) => [s.id, s]),
    );
    let reminded = 0;
    for (const g of grants) {
      const node = nodes.get(g.nodeId);
      const space = spaces.get(g.spaceId);
      if (!node || !space || !g.expiresAt) continue;
      const users = await directory.usersOfSubject(tenantId, { type: g.subjectType, id: g.subjectId });
      if (users.length === 0) continue;
      await core.notify('drive.grant.expiring', {
        tenantId,
        recipients: users.map((id) => ({ type: 'user' as const, id })),
        variables: { nodeName: node.name, spaceName: space.name, expiresAt: g.expiresAt.toISOString() },
        link: `/drive?space=${space.id}&node=${node.id}`,
      });
      reminded++;
    }
    return reminded;
  }

  return {
    /** System task `drive.grantExpiryReminders`: every tenant with the reminder on (hours > 0). */
    async remindExpiringGrants(now: Date): Promise<{ reminded: number }> {
      let reminded = 0;
      for (const tenantId of await repo.tenantsWithPendingReminders(db, now)) {
        const hours = (await core.settings.effective<DriveSettings>('drive', tenantId)).shareExpiryReminderHours;
        if (hours === 0) continue;
        const until = new Date(now.getTime() + hours * HOUR_MS);
        for (;;) {
          const claimed = await repo.claimDueGrants(db, systemScope(tenantId), { now, until, limit: BATCH });
          if (claimed.length) reminded += await remind(tenantId, claimed);
          if (claimed.length < BATCH) break;
        }
      }
      return { reminded };
    },
  };
}

export type RemindersService = ReturnType<typeof createRemindersService>;
