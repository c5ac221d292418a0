import type { DriveCore } from '../core.ts';
import { type LinkActivity, linkActivityBetween } from './digest-repository.ts';

const DAY_MS = 86_400_000;
/** Links listed one by one in a digest; the rest are summed up in one line. */
export const DIGEST_LINKS = 20;
/** How long a creator's claim on a period is kept: longer than any retry of the daily run. */
const CLAIM_TTL_SECONDS = 3 * 24 * 3600;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line of the digest: a link and what happened through it. */
export function digestLine(a: LinkActivity): string {
  const name = a.title || a.nodeName || `link #${a.linkId}`;
  return (
    `"${name}": ${plural(a.opens, 'open')} from ${plural(a.addresses, 'address', 'addresses')}, ` +
    `${plural(a.downloads, 'download')}, ${plural(a.wrongPasswords, 'wrong password')}, ${plural(a.uploads, 'upload')}`
  );
}

/**
 * The link owners' digest (system task `drive.linkDigest`, daily): each creator whose links were
 * used on the previous UTC day gets ONE `drive.link.digest` notification summarising per link
 * the opens, distinct addresses, downloads, wrong passwords and uploads. A run claims each
 * (creator, day) in the shared cache with an atomic increment before sending, so concurrent or
 * repeated runs send it once; the notification also carries that claim as its idempotency key.
 */
export function createLinkDigest(core: Pick<DriveCore, 'db' | 'cache' | 'notify'>) {
  const { db, cache } = core;

  return {
    /** The digest of the UTC day before `now`'s. */
    async sendDigests(now: Date): Promise<{ period: string; creators: number; sent: number }> {
      const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
      const from = new Date(to.getTime() - DAY_MS);
      const day = from.toISOString().slice(0, 10);
      const byCreator = new Map<string, LinkActivity[]>();
      for (const a of await linkActivityBetween(db, from, to)) {
        const key = `${a.tenantId ?? 'platform'}:${a.createdBy}`;
        byCreator.set(key, [...(byCreator.get(key) ?? []), a]);
      }
      let sent = 0;
      for (const [key, links] of byCreator) {
        const claim = `drive:link-digest:${key}:${day}`;
        if ((await cache.incr(claim, CLAIM_TTL_SECONDS)).count !== 1) continue;
        const first = links[0] as LinkActivity;
        const lines = links.slice(0, DIGEST_LINKS).map(digestLine);
        if (links.length > DIGEST_LINKS) lines.push(`and ${plural(links.length - DIGEST_LINKS, 'more link')}`);
        await core.notify('drive.link.digest', {
          tenantId: first.tenantId,
          recipients: [{ type: 'user', id: first.createdBy }],
          variables: {
            day,
            links: links.length,
            opens: links.reduce((n, a) => n + a.opens, 0),
            summary: lines.join('\n'),
          },
          link: '/drive/share-links/mine',
          idempotencyKey: claim,
        });
        sent++;
      }
      return { period: day, creators: byCreator.size, sent };
    },
  };
}

export type LinkDigest = ReturnType<typeof createLinkDigest>;
