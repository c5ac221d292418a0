import { randomBytes } from 'node:crypto';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { SecretBox } from '../../../platform/crypto/secrets.ts';
import type { Db } from '../../../platform/db/client.ts';
import { isUniqueViolation } from '../../../platform/db/sql.ts';
import type { PublicLinks } from '../../../platform/http/public-links.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { findLinkByShortCode } from '../public/public-repository.ts';
import * as repo from './shares-repository.ts';
import { linkUrls, type ShareLinkWithToken, type SharesService, tokenOf } from './shares-service.ts';

/**
 * Short links (issue 15): `/api/drive/public/s/{code}` redirects to the link's full URL. The code
 * stands for the token, so it is random from the system's CSPRNG: 12 base62 characters carry
 * 71 bits, and misses are limited per address, so guessing one of even millions of codes is
 * hopeless within any window.
 */
export const SHORT_CODE_LENGTH = 12;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** a collision of 71-bit codes is all but impossible; a few tries cover it anyway */
const CODE_TRIES = 5;
/** unknown codes one address may try in a window before every lookup from it is refused */
export const SHORT_LINK_MISSES = 20;
export const SHORT_LINK_MISS_WINDOW_SECONDS = 15 * 60;

/** A code of SHORT_CODE_LENGTH base62 characters, uniform (bytes past 62 × 4 are drawn again). */
export function newShortCode(): string {
  let code = '';
  while (code.length < SHORT_CODE_LENGTH) {
    for (const b of randomBytes(SHORT_CODE_LENGTH * 2)) {
      if (b >= ALPHABET.length * 4) continue;
      code += ALPHABET[b % ALPHABET.length];
      if (code.length === SHORT_CODE_LENGTH) break;
    }
  }
  return code;
}

export function createShortLinksService(
  core: DriveCore & { secrets: SecretBox; links: PublicLinks },
  shares: Pick<SharesService, 'manageable' | 'withToken'>,
) {
  const { db, clock, cache, access, activities, secrets } = core;
  const urls = linkUrls(core.links);
  const missKey = (ip: string) => `drive:short-link-miss:${ip}`;

  const record = (tx: Db, scope: Scope, link: repo.LinkRow, action: string) =>
    activities.record(tx, scope, [{ spaceId: link.spaceId, nodeId: link.nodeId, action, detail: { linkId: link.id } }]);

  return {
    /** POST /share-links/{id}/short-link: idempotent; the link's short link, made now if it has none. */
    async create(scope: Scope, id: number): Promise<ShareLinkWithToken> {
      const c = await access.caller(scope);
      const { link, node } = await shares.manageable(c, id);
      if (link.status === 'revoked') throw driveErrors.shareLinkRevoked();
      if (link.shortCode !== null) return shares.withToken(scope, link, node.name);
      for (let attempt = 1; ; attempt++) {
        try {
          const row = await db.transaction(async (tx: Db) => {
            const done = await repo.setShortCode(tx, scope, link.id, newShortCode(), clock());
            if (done) await record(tx, scope, done, 'share.short_link.create');
            return done;
          });
          // null: a concurrent request made it first; answer that one
          const current = row ?? (await repo.findLink(db, scope, link.id));
          if (!current) throw driveErrors.shareLinkNotFound();
          return shares.withToken(scope, current, node.name);
        } catch (err) {
          if (!isUniqueViolation(err) || attempt >= CODE_TRIES) throw err;
        }
      }
    },

    /** DELETE /share-links/{id}/short-link: the short URL stops resolving; a later POST makes a new code. */
    async remove(scope: Scope, id: number): Promise<ShareLinkWithToken> {
      const c = await access.caller(scope);
      const { link, node } = await shares.manageable(c, id);
      if (link.shortCode === null) return shares.withToken(scope, link, node.name);
      const row = await db.transaction(async (tx: Db) => {
        const done = await repo.clearShortCode(tx, scope, link.id, clock());
        if (done) await record(tx, scope, done, 'share.short_link.delete');
        return done;
      });
      if (!row) throw driveErrors.shareLinkNotFound();
      return shares.withToken(scope, row, node.name);
    },

    /**
     * GET /public/s/{code}: the full URL to redirect to. Unknown codes count against the address
     * (shared cache, so every instance counts them); past the limit every lookup from it is
     * refused until the window ends, found or not. A revoked or expired link answers 410; the
     * rest of the link's rules are the full URL's to apply.
     */
    async resolve(code: string, ip: string): Promise<string> {
      const key = missKey(ip);
      if (Number((await cache.get(key)) ?? 0) >= SHORT_LINK_MISSES) {
        const { ttl } = await cache.incr(key, SHORT_LINK_MISS_WINDOW_SECONDS);
        throw driveErrors.shortLinkTooManyMisses(Math.max(1, ttl));
      }
      const valid = code.length === SHORT_CODE_LENGTH && /^[0-9A-Za-z]+$/.test(code);
      const link = valid ? await findLinkByShortCode(db, code) : null;
      if (!link) {
        const { count, ttl } = await cache.incr(key, SHORT_LINK_MISS_WINDOW_SECONDS);
        if (count > SHORT_LINK_MISSES) throw driveErrors.shortLinkTooManyMisses(Math.max(1, ttl));
        throw driveErrors.shareNotFound();
      }
      if (link.status === 'revoked') throw driveErrors.shareRevoked();
      if (link.expiresAt && link.expiresAt.getTime() <= clock().getTime()) throw driveErrors.shareExpired();
      return urls.full(tokenOf(secrets, link));
    },
  };
}

export type ShortLinksService = ReturnType<typeof createShortLinksService>;
