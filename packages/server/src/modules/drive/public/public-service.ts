import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../../../platform/crypto/digest.ts';
import { verifyPassword } from '../../../platform/crypto/passwords.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import type { NodeRow } from '../nodes/node-repository.ts';
import { policyOf, remaining } from '../shares/collect-policy.ts';
import { versionOwner } from '../versions/version-store.ts';
import { createLinkAccess, SESSION_TTL_SECONDS, sessionKey, type Visitor } from './link-access.ts';
import * as repo from './public-repository.ts';

export type { Visitor } from './link-access.ts';

/** Password attempts per link and IP address in one window. */
export const PASSWORD_ATTEMPTS = 5;
export const PASSWORD_WINDOW_SECONDS = 15 * 60;

export function toPublicNodeView(n: Pick<NodeRow, 'id' | 'name' | 'type' | 'size' | 'mime' | 'updatedAt'>) {
  return { id: n.id, name: n.name, type: n.type, size: n.size, mime: n.mime, updatedAt: n.updatedAt };
}

/**
 * Anonymous share links (kind 'share', spec §4.3): metadata, password sessions, browsing a shared
 * folder and downloading. Every route goes through `links.resolve`, which applies all the link's rules.
 */
export function createPublicShareService(core: DriveCore) {
  const { db, clock, cache } = core;
  const links = createLinkAccess(core);
  const { resolve, open, reachable, log } = links;

  return {
    /**
     * What the link shows. A password link without a session shows only that a password is
     * needed (not even the name: names can say much). Without a session each request counts an
     * access; with one, the access was counted when the session was opened.
     */
    async metadata(token: string, visitor: Visitor) {
      const r = await resolve(token, visitor, 'any');
      const passwordRequired = r.link.passwordHash !== null;
      if (passwordRequired && !r.hasSession) {
        return { passwordRequired: true, hasSession: false };
      }
      if (!passwordRequired) {
        if (!(await repo.countAccess(db, r.link.id))) throw driveErrors.shareExhausted('access');
        await log(r, r.node.id, 'access', visitor);
      }
      const common = { passwordRequired, hasSession: r.hasSession, kind: r.link.kind, expiresAt: r.link.expiresAt };
      if (r.link.kind === 'collect') {
        // the folder's name and what it takes: never what it holds
        const left = remaining(r.link);
        return {
          ...common,
          node: toPublicNodeView(r.node),
          collect: { ...policyOf(r.link), remainingFiles: left.files, remainingBytes: left.bytes },
        };
      }
      return {
        ...common,
        node: toPublicNodeView(r.node),
        capabilities: r.link.capabilities,
        watermark: r.link.watermark,
      };
    },

    /** Opens an access session with the link's password (counted as one access). */
    async password(token: string, password: string, visitor: Visitor) {
      const r = await resolve(token, visitor, 'any');
      if (r.link.passwordHash === null) throw httpErrors.invalidField('password', 'this share link has no password');
      // every attempt counts; a correct password clears the counter
      const attemptsKey = `drive:share-password:${r.link.id}:${visitor.ip}`;
      const attempt = await cache.incr(attemptsKey, PASSWORD_WINDOW_SECONDS);
      if (attempt.count > PASSWORD_ATTEMPTS) throw driveErrors.shareTooManyAttempts(attempt.ttl);
      if (!(await verifyPassword(r.link.passwordHash, password))) {
        await log(r, r.node.id, 'wrong_password', visitor);
        throw driveErrors.shareWrongPassword();
      }
      await cache.del(attemptsKey);
      if (!(await repo.countAccess(db, r.link.id))) throw driveErrors.shareExhausted('access');
      await log(r, r.node.id, 'access', visitor);
      const sessionToken = randomToken();
      await cache.set(
        sessionKey(sessionToken),
        JSON.stringify({ linkId: r.link.id, sessionVersion: r.link.sessionVersion }),
        SESSION_TTL_SECONDS,
      );
      return { sessionToken, expiresAt: new Date(clock().getTime() + SESSION_TTL_SECONDS * 1000) };
    },

    /** One page of a folder inside the shared folder (the shared folder by default). */
    async browse(token: string, visitor: Visitor, q: { parentId?: number; page: number; pageSize: number }) {
      const r = await open(token, visitor);
      const parent = await reachable(r, q.parentId);
      if (parent.type !== 'folder') throw driveErrors.notAFolder('parentId');
      const page = await repo.liveChildren(db, r.link.tenantId, parent.id, q);
      return { list: page.list.map(toPublicNodeView), total: page.total, page: q.page, pageSize: q.pageSize };
    },

    /**
     * A file's current content, with the 'download' capability only (a preview-only link never
     * gives the original bytes). `counts`: this request starts a reading (no Range or one from
     * byte 0), so it takes one download from the link's limit.
     */
    async content(token: string, visitor: Visitor, nodeId: number | undefined, counts: boolean) {
      const r = await open(token, visitor);
      if (!r.link.capabilities.includes('download')) throw driveErrors.sharePreviewOnly();
      const node = await reachable(r, nodeId);
      if (node.type !== 'file') throw driveErrors.notAFile();
      if (node.currentVersionId === null) throw driveErrors.versionNotFound();
      const file = await core.files.files.referencedBy(r.scope, versionOwner(node.currentVersionId));
      if (counts) {
        if (!(await repo.countDownload(db, r.link.id))) throw driveErrors.shareExhausted('download');
        await log(r, node.id, 'download', visitor);
      }
      return { ...file, name: node.name };
    },

    /** Streams it as an attachment: Range/206/416, ETag/304 (the files module). */
    send: (req: FastifyRequest, reply: FastifyReply, file: Parameters<DriveCore['files']['sendContent']>[2]) =>
      core.files.sendContent(req, reply, file, { inline: false }),
  };
}

export type PublicShareService = ReturnType<typeof createPublicShareService>;
