import type { Scope } from '../../../platform/auth/principal.ts';
import { systemScope } from '../../../platform/auth/principal.ts';
import { sha256 } from '../../../platform/crypto/digest.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { findLiveNode, type NodeRow } from '../nodes/node-repository.ts';
import type { DriveSettings } from '../settings.ts';
import { ipAllowed } from '../shares/ip-ranges.ts';
import type { ShareAccessEvent, ShareKind } from '../tables.ts';
import type { ShareLinkRow } from './public-repository.ts';
import * as repo from './public-repository.ts';

/** How long an access session opened with the password lasts. */
export const SESSION_TTL_SECONDS = 12 * 3600;

/** What an anonymous request brings: the address, the user agent and the access session (header or cookie). */
export type Visitor = { ip: string; userAgent: string | null; session: string | null };

export type ResolvedLink = { link: ShareLinkRow; node: NodeRow; scope: Scope; hasSession: boolean };

export const sessionKey = (sessionToken: string) => `drive:share-session:${sha256(sessionToken)}`;

/**
 * The rules every anonymous route applies to a link, whatever its kind (share or collect):
 * `resolve` finds the link behind a token and refuses it in the order the caller can act on;
 * `open` also requires the password session; `reachable` keeps a request inside the shared folder.
 */
export function createLinkAccess(core: DriveCore) {
  const { db, clock, cache } = core;

  async function sessionValid(link: ShareLinkRow, session: string | null): Promise<boolean> {
    if (!session || session.length > 200) return false;
    const raw = await cache.get(sessionKey(session));
    if (!raw) return false;
    const s = JSON.parse(raw) as { linkId: number; sessionVersion: number };
    // a revoke or a password change bumps session_version and so ends every open session
    return s.linkId === link.id && s.sessionVersion === link.sessionVersion;
  }

  /** The link behind a token with every rule applied; a link of another kind ('any': either) is not found. */
  async function resolve(token: string, visitor: Visitor, kind: ShareKind | 'any' = 'share'): Promise<ResolvedLink> {
    const found = await repo.findLinkByTokenHash(db, sha256(token));
    const link = found?.link;
    if (!link || (kind !== 'any' && link.kind !== kind)) throw driveErrors.shareNotFound();
    if (link.status === 'revoked') throw driveErrors.shareRevoked();
    if (link.expiresAt && link.expiresAt.getTime() <= clock().getTime()) throw driveErrors.shareExpired();
    const scope = { ...systemScope(link.tenantId), ip: visitor.ip };
    const settings = await core.settings.effective<DriveSettings>('drive', link.tenantId);
    if (!settings.externalShareEnabled || !found.spaceSharing) throw driveErrors.shareDisabled();
    if (!ipAllowed(link.allowedIps, visitor.ip)) throw driveErrors.shareIpDenied();
    const node = found.node;
    if (!node) throw driveErrors.nodeNotFound();
    const hasSession = link.passwordHash !== null && (await sessionValid(link, visitor.session));
    return { link, node, scope, hasSession };
  }

  /** Browsing, content and submissions: a password link needs its session. */
  async function open(token: string, visitor: Visitor, kind: ShareKind = 'share') {
    const r = await resolve(token, visitor, kind);
    if (r.link.passwordHash !== null && !r.hasSession) throw driveErrors.sharePasswordRequired();
    return r;
  }

  /** A node the link reaches: the shared node itself or a live node under the shared folder. */
  async function reachable(r: ResolvedLink, nodeId: number | undefined): Promise<NodeRow> {
    if (nodeId === undefined || nodeId === r.node.id) return r.node;
    const node = await findLiveNode(db, r.scope, nodeId);
    if (!node?.ancestorIds.includes(r.node.id)) throw driveErrors.nodeNotFound();
    return node;
  }

  /**
   * One row of the link's access log (drive_share_access_logs); `opts.tx` writes it with a change.
   * Downloads and wrong passwords also count towards the abnormal-behaviour alerts (one cache
   * increment each).
   */
  async function log(
    r: Pick<ResolvedLink, 'link'>,
    nodeId: number | null,
    event: ShareAccessEvent,
    v: Visitor,
    detail?: Record<string, unknown>,
    opts: { tx?: Db; userId?: number } = {},
  ) {
    await repo.logShareAccess(opts.tx ?? db, r.link, {
      nodeId,
      event,
      ip: v.ip,
      userAgent: v.userAgent,
      userId: opts.userId ?? null,
      detail,
    });
    if (event === 'download') await core.alerts.linkDownload(r.link);
    else if (event === 'wrong_password') await core.alerts.linkFailure(r.link);
  }

  return { resolve, open, reachable, log };
}

export type LinkAccess = ReturnType<typeof createLinkAccess>;
