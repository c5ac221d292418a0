import { systemScope } from '../../../platform/auth/principal.ts';
import type { DriveCore } from '../core.ts';
import { findNodes } from '../nodes/node-repository.ts';
import type { DriveSettings } from '../settings.ts';
import * as repo from './reminders-repository.ts';

const HOUR_MS = 3_600_000;
/** Grants claimed (and reminded) per round. */
const BATCH = 500;

/**
 * Expiry reminders, one mechanism for two kinds of item: a temporary grant (system task
 * `drive.grantExpiryReminders`, `drive.grant.expiring` to the users its subject stands for) and
 * an active share link (`drive.linkExpiryReminders`, `drive.link.expiring` to its creator) that
 * expire within the tenant's shareExpiryReminderHours are announced once: each item is claimed by
 * a conditional update of its reminded_at. Changing the expiry clears reminded_at
 * (grants-service, shares-service), which arms the reminder again.
 */
export function createRemindersService(core: Pick<DriveCore, 'db' | 'settings' | 'directory' | 'notify'>) {
  const { db, directory } = core;

  /** Reminds one claimed batch of grants; answers how many reached at least one user. */
  async function remindGrants(tenantId: number | null, grants: repo.ClaimedGrant[]): Promise<number> {
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

  /** Reminds one claimed batch of links; answers how many were announced. */
  async function remindLinks(tenantId: number | null, links: repo.ClaimedLink[]): Promise<number> {
    const scope = systemScope(tenantId);
    const nodes = new Map((await findNodes(db, scope, [...new Set(links.map((l) => l.nodeId))])).map((n) => [n.id, n]));
    const spaces = new Map(
      (await repo.findSpaces(db, scope, [...new Set(links.map((l) => l.spaceId))])).map((s) => [s.id, s]),
    );
    let reminded = 0;
    for (const l of links) {
      const node = nodes.get(l.nodeId);
      const space = spaces.get(l.spaceId);
      if (!node || !space || !l.expiresAt) continue;
      await core.notify('drive.link.expiring', {
        tenantId,
        recipients: [{ type: 'user', id: l.createdBy }],
        variables: { nodeName: node.name, spaceName: space.name, expiresAt: l.expiresAt.toISOString() },
        link: `/drive/share-links?id=${l.id}`,
      });
      reminded++;
    }
    return reminded;
  }

  /** Every tenant with the reminder on (hours > 0): claims due items batch by batch and reminds them. */
  async function sweep<T>(
    now: Date,
    tenants: (now: Date) => Promise<(number | null)[]>,
    claim: (scope: ReturnType<typeof systemScope>, q: { now: Date; until: Date; limit: number }) => Promise<T[]>,
    send: (tenantId: number | null, items: T[]) => Promise<number>,
  ): Promise<{ reminded: number }> {
    let reminded = 0;
    for (const tenantId of await tenants(now)) {
      const hours = (await core.settings.effective<DriveSettings>('drive', tenantId)).shareExpiryReminderHours;
      if (hours === 0) continue;
      const until = new Date(now.getTime() + hours * HOUR_MS);
      for (;;) {
        const claimed = await claim(systemScope(tenantId), { now, until, limit: BATCH });
        if (claimed.length) reminded += await send(tenantId, claimed);
        if (claimed.length < BATCH) break;
      }
    }
    return { reminded };
  }

  return {
    /** System task `drive.grantExpiryReminders`. */
    remindExpiringGrants: (now: Date) =>
      sweep(
        now,
        (n) => repo.tenantsWithPendingReminders(db, n),
        (sc, q) => repo.claimDueGrants(db, sc, q),
        remindGrants,
      ),

    /** System task `drive.linkExpiryReminders`. */
    remindExpiringLinks: (now: Date) =>
      sweep(
        now,
        (n) => repo.tenantsWithPendingLinkReminders(db, n),
        (sc, q) => repo.claimDueLinks(db, sc, q),
        remindLinks,
      ),
  };
}

export type RemindersService = ReturnType<typeof createRemindersService>;
