import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../../../platform/crypto/digest.ts';
import { verifyPassword } from '../../../platform/crypto/passwords.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { etagMatches } from '../../files/index.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import type { NodeRow } from '../nodes/node-repository.ts';
import { type PreviewKind, type PreviewService, shareWatermarkText } from '../previews/index.ts';
import { policyOf, remaining } from '../shares/collect-policy.ts';
import { versionOwner } from '../versions/version-store.ts';
import { createLinkAccess, type ResolvedLink, SESSION_TTL_SECONDS, sessionKey, type Visitor } from './link-access.ts';
import * as repo from './public-repository.ts';

export type { Visitor } from './link-access.ts';

type ListedNode = Parameters<PreviewService['kindsOf']>[1][number];

/** Password attempts per link and IP address in one window. */
export const PASSWORD_ATTEMPTS = 5;
export const PASSWORD_WINDOW_SECONDS = 15 * 60;

/** `preview`: what the link lets a client show of it (GET …/preview), 'none' for a link without previews. */
export function toPublicNodeView(
  n: Pick<NodeRow, 'id' | 'name' | 'type' | 'size' | 'mime' | 'updatedAt'>,
  preview: PreviewKind,
) {
  return { id: n.id, name: n.name, type: n.type, size: n.size, mime: n.mime, updatedAt: n.updatedAt, preview };
}

/**
 * Anonymous share links (kind 'share', spec §4.3): metadata, password sessions, browsing a shared
 * folder and downloading. Every route goes through `links.resolve`, which applies all the link's rules.
 */
export function createPublicShareService(core: DriveCore, previews: PreviewService) {
  const { db, clock, cache } = core;
  const links = createLinkAccess(core);
  const { resolve, open, reachable, log } = links;

  /** The public views of `nodes`, with what the link lets a client preview of each. */
  async function nodeViews(r: ResolvedLink, nodes: Array<Parameters<typeof toPublicNodeView>[0] & ListedNode>) {
    const kinds = r.link.capabilities.includes('preview') ? await previews.kindsOf(r.scope, nodes) : new Map();
    return nodes.map((n) => toPublicNodeView(n, kinds.get(n.id) ?? 'none'));
  }

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
          node: toPublicNodeView(r.node, 'none'),
          collect: { ...policyOf(r.link), remainingFiles: left.files, remainingBytes: left.bytes },
        };
      }
      return {
        ...common,
        node: (await nodeViews(r, [r.node]))[0],
        capabilities: r.link.capabilities,
        watermark: r.link.watermark,
        remainingDownloads:
          r.link.maxDownloadCount === null ? null : Math.max(0, r.link.maxDownloadCount - r.link.downloadCount),
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
      return { list: await nodeViews(r, page.list), total: page.total, page: q.page, pageSize: q.pageSize };
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

    /**
     * The preview of a file the link reaches (the 'preview' capability; never the original bytes,
     * whatever the other capabilities): the link's watermark burned into images. An `If-None-Match`
     * naming the current preview answers 304 before anything is read or encoded. A produced
     * preview is logged as an access (detail.preview), never counted as an access or a download.
     */
    async preview(token: string, visitor: Visitor, nodeId: number | undefined, ifNoneMatch: string | undefined) {
      const r = await open(token, visitor);
      if (!r.link.capabilities.includes('preview')) throw driveErrors.sharePreviewNotAllowed();
      const node = await reachable(r, nodeId);
      const watermark = r.link.watermark ? shareWatermarkText(r.link.id, visitor.ip, clock()) : null;
      const plan = await previews.plan(r.scope, node);
      const etag = previews.etag(plan, watermark);
      if (etagMatches(ifNoneMatch, etag)) return { notModified: true as const, etag };
      const preview = await previews.render(r.scope, plan, { watermark });
      await log(r, node.id, 'access', visitor, { preview: preview.kind, versionId: node.currentVersionId });
      return { notModified: false as const, name: node.name, ...preview };
    },

    /** Streams it as an attachment: Range/206/416, ETag/304 (the files module). */
    send: (req: FastifyRequest, reply: FastifyReply, file: Parameters<DriveCore['files']['sendContent']>[2]) =>
      core.files.sendContent(req, reply, file, { inline: false }),
  };
}

export type PublicShareService = ReturnType<typeof createPublicShareService>;
