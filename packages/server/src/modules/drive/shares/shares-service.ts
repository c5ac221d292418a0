import type { Scope } from '../../../platform/auth/principal.ts';
import { randomToken, sha256 } from '../../../platform/crypto/digest.ts';
import { hashPassword } from '../../../platform/crypto/passwords.ts';
import { type SecretBox, secretContext } from '../../../platform/crypto/secrets.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { Page, PageRequest } from '../../../platform/db/scoped.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { PublicLinks } from '../../../platform/http/public-links.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import type { DriveSettings } from '../settings.ts';
import { findSpace, type SpaceRow } from '../spaces/space-repository.ts';
import type { ShareCapability, ShareKind } from '../tables.ts';
import { type CollectInput, collectExhausted, collectPolicy, collectView, policyOf } from './collect-policy.ts';
import { isIpOrCidr } from './ip-ranges.ts';
import { manageableLink } from './manageable.ts';
import * as repo from './shares-repository.ts';

/**
 * Share links (spec §4.3, issue 15): an editor of a node creates a token link to it for people
 * outside the company; its creator or the node's managers read, change and revoke it. The
 * anonymous side (`public/`) finds a link by sha256(token) and ends its sessions when
 * session_version moves (a revoke, a password change).
 */
export type ShareLinkCreate = {
  nodeId: number;
  kind?: ShareKind;
  collect?: CollectInput;
  title?: string;
  password?: string;
  expiresAt?: string;
  maxAccessCount?: number;
  maxDownloadCount?: number;
  allowedIps?: string[];
  capabilities?: ShareCapability[];
  watermark?: boolean;
};
export type ShareLinkUpdate = {
  title?: string;
  password?: string | null;
  expiresAt?: string | null;
  maxAccessCount?: number | null;
  maxDownloadCount?: number | null;
  allowedIps?: string[];
  capabilities?: ShareCapability[];
  watermark?: boolean;
  collect?: CollectInput;
};
export type ShareLinkState = 'active' | 'expired' | 'exhausted' | 'revoked' | 'disabled';

/** The encryption context of a link's token: a value copied into another row does not decrypt. */
const tokenContext = (id: number) => secretContext('drive_share_links', 'token_encrypted', id);

/** The token of a link, decrypted (its creator, its managers and its short link need it). */
export const tokenOf = (secrets: SecretBox, link: Pick<repo.LinkRow, 'id' | 'tokenEncrypted'>) =>
  secrets.decrypt(link.tokenEncrypted, tokenContext(link.id));

/**
 * The public URLs of a link: the full one (the token) and the short one (the short code). The full
 * one is the console's page `/s/<token>`, not the JSON route: people open it in a browser (0017).
 */
export const linkUrls = (links: PublicLinks) => ({
  full: (token: string) => links.to(`/s/${token}`),
  short: (code: string) => links.to(`/api/drive/public/s/${code}`),
});

/** revoked, then disabled (tenant or space switch off), expired, exhausted (a limit reached), else active. */
export function linkState(l: repo.LinkRow, now: Date, sharingOn: boolean): ShareLinkState {
  if (l.status === 'revoked') return 'revoked';
  if (!sharingOn) return 'disabled';
  if (l.expiresAt !== null && l.expiresAt <= now) return 'expired';
  if (l.maxAccessCount !== null && l.accessCount >= l.maxAccessCount) return 'exhausted';
  if (l.maxDownloadCount !== null && l.downloadCount >= l.maxDownloadCount) return 'exhausted';
  if (l.kind === 'collect' && collectExhausted(l)) return 'exhausted';
  return 'active';
}

export function toShareLinkView(
  l: repo.LinkRow,
  ctx: { nodeName: string; creatorName: string; state: ShareLinkState },
) {
  return {
    id: l.id,
    kind: l.kind,
    node: { id: l.nodeId, name: ctx.nodeName },
    spaceId: l.spaceId,
    title: l.title,
    hasPassword: l.passwordHash !== null,
    capabilities: l.capabilities,
    expiresAt: l.expiresAt,
    maxAccessCount: l.maxAccessCount,
    accessCount: l.accessCount,
    maxDownloadCount: l.maxDownloadCount,
    downloadCount: l.downloadCount,
    allowedIps: l.allowedIps,
    watermark: l.watermark,
    collect: collectView(l),
    status: l.status,
    state: ctx.state,
    revokedAt: l.revokedAt,
    revokedBy: l.revokedBy,
    createdBy: { id: l.createdBy, name: ctx.creatorName },
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
  };
}

export type ShareLinkView = ReturnType<typeof toShareLinkView>;
export type ShareLinkWithToken = ShareLinkView & { token: string; url: string; shortUrl: string | null };

export function createSharesService(core: DriveCore & { secrets: SecretBox; links: PublicLinks }) {
  const { db, clock, access, directory, activities, secrets } = core;
  const settingsOf = (scope: Scope) => core.settings.effective<DriveSettings>('drive', scope.tenantId);
  const urls = linkUrls(core.links);

  async function views(scope: Scope, rows: repo.LinkWithNode[]): Promise<ShareLinkView[]> {
    const now = clock();
    const settings = await settingsOf(scope);
    const spaceOn = new Map<number, boolean>();
    for (const id of new Set(rows.map((r) => r.link.spaceId)))
      spaceOn.set(id, (await findSpace(db, scope, id))?.externalShareEnabled ?? false);
    const creators = [...new Set(rows.map((r) => r.link.createdBy))];
    const described = creators.length
      ? await directory.describeSubjects(
          scope.tenantId,
          creators.map((id) => ({ type: 'user' as const, id })),
        )
      : [];
    const names = new Map(described.map((s) => [s.id, s.name]));
    return rows.map(({ link, nodeName }) =>
      toShareLinkView(link, {
        nodeName,
        creatorName: names.get(link.createdBy) ?? `user #${link.createdBy}`,
        state: linkState(link, now, settings.externalShareEnabled && (spaceOn.get(link.spaceId) ?? false)),
      }),
    );
  }

  async function withToken(scope: Scope, link: repo.LinkRow, nodeName: string): Promise<ShareLinkWithToken> {
    const [view] = await views(scope, [{ link, nodeName }]);
    const token = tokenOf(secrets, link);
    const shortUrl = link.shortCode === null ? null : urls.short(link.shortCode);
    return { ...(view as ShareLinkView), token, url: urls.full(token), shortUrl };
  }

  function assertSharingOn(settings: DriveSettings, space: SpaceRow) {
    if (!settings.externalShareEnabled || !space.externalShareEnabled) throw driveErrors.externalShareDisabled();
  }

  /** A future expiry within externalShareMaxDays; none is allowed only when that setting is 0. */
  function checkExpiry(settings: DriveSettings, expiresAt: string | null | undefined, now: Date): Date | null {
    const maxDays = settings.externalShareMaxDays;
    if (expiresAt === undefined || expiresAt === null) {
      if (maxDays > 0)
        throw httpErrors.invalidField(
          'expiresAt',
          `is required: the drive setting externalShareMaxDays (${maxDays}) limits share links to ${maxDays} days; ` +
            'an administrator sets it to 0 to allow links without expiry',
        );
      return null;
    }
    const at = new Date(expiresAt);
    if (!(at > now)) throw httpErrors.invalidField('expiresAt', 'must be in the future');
    if (maxDays > 0 && at.getTime() > now.getTime() + maxDays * 86_400_000)
      throw httpErrors.invalidField(
        'expiresAt',
        `must be within ${maxDays} days from now: the drive setting externalShareMaxDays (${maxDays}) limits share links`,
      );
    return at;
  }

  function checkIps(ips: string[] | undefined): string[] | undefined {
    ips?.forEach((ip, i) => {
      if (!isIpOrCidr(ip))
        throw httpErrors.invalidField(`allowedIps.${i}`, 'must be an IPv4/IPv6 address or CIDR range');
    });
    return ips;
  }

  const dedupe = (caps: ShareCapability[] | undefined) => (caps ? [...new Set(caps)] : undefined);

  const manageable = (c: DriveCaller, id: number) => manageableLink(core, c, id);

  /** The options of the other kind: a collection link neither shows nor hands out anything, a share link takes no policy. */
  function checkKindFields(kind: ShareKind, input: ShareLinkUpdate) {
    if (kind === 'share') {
      if (input.collect !== undefined) throw httpErrors.invalidField('collect', "applies to kind 'collect' only");
      return;
    }
    const misfit = { capabilities: 'collection links are upload-only', maxDownloadCount: 'nothing is downloaded' };
    for (const [field, why] of Object.entries(misfit)) {
      const value = input[field as keyof typeof misfit];
      if (value !== undefined && value !== null)
        throw httpErrors.invalidField(field, `does not apply to a collection link (${why})`);
    }
    if (input.watermark === true)
      throw httpErrors.invalidField('watermark', 'does not apply to a collection link (nothing is previewed)');
  }

  return {
    /** for the short-link and QR code routes: the same gate and the same view */
    manageable,
    withToken,

    /** POST /share-links: the caller shares a node (a folder to collect into) they hold the 'share' role on. */
    async create(scope: Scope, input: ShareLinkCreate): Promise<ShareLinkWithToken> {
      const c = await access.caller(scope);
      const kind = input.kind ?? 'share';
      checkKindFields(kind, input);
      const { node, space } = await access.authorizeNode(c, input.nodeId, 'share');
      if (kind === 'collect' && node.type !== 'folder') throw driveErrors.notAFolder('nodeId');
      const settings = await settingsOf(scope);
      const policy = kind === 'collect' ? collectPolicy(settings, input.collect ?? {}) : null;
      assertSharingOn(settings, space);
      const now = clock();
      const expiresAt = checkExpiry(settings, input.expiresAt, now);
      if (settings.externalShareRequirePassword && input.password === undefined)
        throw httpErrors.invalidField('password', 'is required: every share link must have a password');
      const allowedIps = checkIps(input.allowedIps) ?? [];
      const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
      const token = randomToken();
      const link = await db.transaction(async (tx: Db) => {
        const row = await repo.insertLink(tx, scope, {
          spaceId: space.id,
          nodeId: node.id,
          kind,
          title: input.title ?? '',
          tokenHash: sha256(token),
          tokenEncrypted: '',
          passwordHash,
          capabilities: kind === 'collect' ? [] : (dedupe(input.capabilities) ?? ['preview']),
          collectPolicy: policy,
          expiresAt,
          maxAccessCount: input.maxAccessCount ?? null,
          maxDownloadCount: input.maxDownloadCount ?? null,
          allowedIps,
          watermark: input.watermark ?? false,
          createdBy: c.userId,
        });
        // the context binds the id, known only after the insert
        const sealed = await repo.updateLink(
          tx,
          scope,
          row.id,
          { tokenEncrypted: secrets.encrypt(token, tokenContext(row.id)) },
          { now },
        );
        await activities.record(tx, scope, [
          {
            spaceId: space.id,
            nodeId: node.id,
            action: 'share.create',
            detail: {
              linkId: row.id,
              kind,
              capabilities: row.capabilities,
              expiresAt,
              password: passwordHash !== null,
            },
          },
        ]);
        return sealed ?? row;
      });
      return withToken(scope, link, node.name);
    },

    /** GET /share-links/mine: the caller's links, newest first. */
    async mine(scope: Scope, page: PageRequest): Promise<Page<ShareLinkView>> {
      const c = await access.caller(scope);
      const p = await repo.pageOfLinks(db, scope, { createdBy: c.userId }, page);
      return { ...p, list: await views(scope, p.list) };
    },

    /** GET /share-links?spaceId: every link of a space, to its managers. */
    async ofSpace(scope: Scope, spaceId: number, page: PageRequest): Promise<Page<ShareLinkView>> {
      const c = await access.caller(scope);
      await access.authorizeSpace(c, spaceId, 'manageLinks');
      const p = await repo.pageOfLinks(db, scope, { spaceId }, page);
      return { ...p, list: await views(scope, p.list) };
    },

    /** The link with its node and space for its creator or a manager of its node (others: not found). */
    readable: async (scope: Scope, id: number) => manageable(await access.caller(scope), id),

    /** GET /share-links/{id}: with the token, so its creator can copy the link again. */
    async get(scope: Scope, id: number): Promise<ShareLinkWithToken> {
      const c = await access.caller(scope);
      const { link, node } = await manageable(c, id);
      return withToken(scope, link, node.name);
    },

    /** PUT /share-links/{id}: the creation rules apply to what changes; a password change ends open sessions. */
    async update(scope: Scope, id: number, input: ShareLinkUpdate): Promise<ShareLinkWithToken> {
      const c = await access.caller(scope);
      const { link, node, space } = await manageable(c, id);
      if (link.status === 'revoked') throw driveErrors.shareLinkRevoked();
      checkKindFields(link.kind, input);
      if (space.archivedAt !== null) throw driveErrors.spaceArchived();
      const settings = await settingsOf(scope);
      assertSharingOn(settings, space);
      const now = clock();
      const patch: repo.LinkPatch = {};
      if (input.expiresAt !== undefined) {
        patch.expiresAt = checkExpiry(settings, input.expiresAt, now);
        // a new expiry arms the expiry reminder again (permissions/reminders-service)
        patch.remindedAt = null;
      }
      if (input.password === null && settings.externalShareRequirePassword)
        throw httpErrors.invalidField('password', 'cannot be removed: every share link must have a password');
      if (input.allowedIps !== undefined) patch.allowedIps = checkIps(input.allowedIps) as string[];
      if (input.title !== undefined) patch.title = input.title;
      if (input.maxAccessCount !== undefined) patch.maxAccessCount = input.maxAccessCount;
      if (input.maxDownloadCount !== undefined) patch.maxDownloadCount = input.maxDownloadCount;
      if (input.capabilities !== undefined) patch.capabilities = dedupe(input.capabilities) as ShareCapability[];
      if (input.watermark !== undefined) patch.watermark = input.watermark;
      if (input.collect !== undefined) patch.collectPolicy = collectPolicy(settings, input.collect, policyOf(link));
      const { password } = input;
      const passwordChanged = password !== undefined && !(password === null && link.passwordHash === null);
      if (passwordChanged) patch.passwordHash = password === null ? null : await hashPassword(password);
      const row = await db.transaction(async (tx: Db) => {
        const done = await repo.updateLink(tx, scope, link.id, patch, { now, bumpSession: passwordChanged });
        if (!done) throw driveErrors.shareLinkNotFound();
        const changed = Object.keys(patch).filter((k) => k !== 'passwordHash' && k !== 'remindedAt');
        await activities.record(tx, scope, [
          {
            spaceId: link.spaceId,
            nodeId: link.nodeId,
            action: 'share.update',
            detail: { linkId: link.id, changed, ...(passwordChanged ? { password: password !== null } : {}) },
          },
        ]);
        return done;
      });
      return withToken(scope, row, node.name);
    },

    /** POST /share-links/{id}/revoke: idempotent; a link revoked already is returned as it is. */
    async revoke(scope: Scope, id: number): Promise<ShareLinkView> {
      const c = await access.caller(scope);
      const { link, node } = await manageable(c, id);
      if (link.status === 'revoked') return (await views(scope, [{ link, nodeName: node.name }]))[0] as ShareLinkView;
      const now = clock();
      const row = await db.transaction(async (tx: Db) => {
        const done = await repo.updateLink(
          tx,
          scope,
          link.id,
          { status: 'revoked', revokedAt: now, revokedBy: c.userId },
          { now, bumpSession: true },
        );
        if (!done) throw driveErrors.shareLinkNotFound();
        await activities.record(tx, scope, [
          { spaceId: link.spaceId, nodeId: link.nodeId, action: 'share.revoke', detail: { linkId: link.id } },
        ]);
        return done;
      });
      return (await views(scope, [{ link: row, nodeName: node.name }]))[0] as ShareLinkView;
    },
  };
}

export type SharesService = ReturnType<typeof createSharesService>;
