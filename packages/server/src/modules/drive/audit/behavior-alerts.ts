import type { FastifyBaseLogger } from 'fastify';
import { systemScope } from '../../../platform/auth/principal.ts';
import type { DriveCore } from '../core.ts';
import { findNode } from '../nodes/node-repository.ts';
import type { DriveSettings } from '../settings.ts';
import { spaceManagerIds } from '../spaces/managers.ts';
import { findSpace } from '../spaces/space-repository.ts';
import type { driveShareLinks } from '../tables.ts';

type Link = Pick<typeof driveShareLinks.$inferSelect, 'id' | 'tenantId' | 'spaceId' | 'nodeId' | 'title'>;
type Behavior = 'download' | 'share_failure';

/**
 * Abnormal-behaviour alerts (settings alertWindowMinutes, alertBulkDownloadCount,
 * alertShareFailureCount; 0 = off, platform values): each observed operation is one atomic
 * increment of a shared-cache counter for its subject and fixed window; the instance whose
 * increment reaches the threshold exactly raises drive.behavior.abnormal to the space's managers,
 * so it is sent once per window however many instances count. Nothing else is read unless the
 * threshold is hit. Counted: downloads by one signed-in user in one space, downloads through one
 * share link, wrong passwords on one share link.
 */
export function createBehaviorAlerts(
  core: Pick<DriveCore, 'db' | 'clock' | 'cache' | 'settings' | 'directory' | 'notify'>,
  log: Pick<FastifyBaseLogger, 'error'>,
) {
  const { db, clock, cache, directory } = core;

  async function observe(
    tenantId: number | null,
    behavior: Behavior,
    subject: string,
    spaceId: number,
    describe: (spaceName: string) => Promise<{ actorName: string; behavior: string }>,
  ) {
    const s = await core.settings.effective<DriveSettings>('drive', tenantId);
    const threshold = behavior === 'download' ? s.alertBulkDownloadCount : s.alertShareFailureCount;
    if (s.alertWindowMinutes === 0 || threshold === 0) return;
    const windowSeconds = s.alertWindowMinutes * 60;
    const window = Math.floor(clock().getTime() / (windowSeconds * 1000));
    const key = `drive:alert:${behavior}:${tenantId ?? 'platform'}:${subject}:${window}`;
    // the key names its window, so the TTL only has to outlive it
    const { count } = await cache.incr(key, windowSeconds + 60);
    if (count !== threshold) return;
    const space = await findSpace(db, systemScope(tenantId), spaceId);
    if (!space) return;
    const managers = await spaceManagerIds(db, directory, space);
    if (managers.length === 0) return;
    const what = await describe(space.name);
    await core.notify('drive.behavior.abnormal', {
      tenantId,
      recipients: managers.map((id) => ({ type: 'user' as const, id })),
      variables: { ...what, count, minutes: s.alertWindowMinutes },
      link: `/drive?space=${space.id}`,
      idempotencyKey: key,
    });
  }

  /** An alert must never fail the request that was observed. */
  const safely = (p: Promise<void>) =>
    p.catch((err: unknown) => log.error({ err }, 'drive: abnormal-behaviour alert failed'));

  async function linkName(link: Link): Promise<string> {
    const node = link.title ? null : await findNode(db, systemScope(link.tenantId), link.nodeId);
    return `Share link "${link.title || node?.name || link.nodeId}" (#${link.id})`;
  }

  return {
    /** A signed-in user's download (the drive's content route with download=true), counted per user and space. */
    userDownload: (tenantId: number | null, userId: number, spaceId: number) =>
      safely(
        observe(tenantId, 'download', `user:${userId}:space:${spaceId}`, spaceId, async (spaceName) => {
          const [who] = await directory.describeSubjects(tenantId, [{ type: 'user', id: userId }]);
          return { actorName: who?.name ?? `user #${userId}`, behavior: `downloaded many files from "${spaceName}"` };
        }),
      ),

    /** A download through a share link (public/link-access.ts `log`). */
    linkDownload: (link: Link) =>
      safely(
        observe(link.tenantId, 'download', `link:${link.id}`, link.spaceId, async () => ({
          actorName: await linkName(link),
          behavior: 'was used for many downloads',
        })),
      ),

    /** A wrong password on a share link (public/link-access.ts `log`). */
    linkFailure: (link: Link) =>
      safely(
        observe(link.tenantId, 'share_failure', `link:${link.id}`, link.spaceId, async () => ({
          actorName: await linkName(link),
          behavior: 'received many wrong passwords',
        })),
      ),
  };
}

export type BehaviorAlerts = ReturnType<typeof createBehaviorAlerts>;
