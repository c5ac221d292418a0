import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { rowOrThrow } from '../../../platform/db/sql.ts';
import { sanitizeRichHtml } from '../../../platform/html/sanitize.ts';
import { type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import type { AudienceTarget, MessagingDeps } from '../deps.ts';
import { announcementErrors } from './errors.ts';
import * as repo from './repository.ts';
import type { AnnouncementPriority, AnnouncementTargetType } from './tables.ts';

/** Who an announcement reaches; the identity module answers (see index.ts). */
export type Audience = Pick<MessagingDeps, 'usersByTargets' | 'targetsOfUser'> & {
  /** targets whose user, role or department is not a row of the tenant */
  missingTargets(tenantId: number | null, targets: AudienceTarget[]): Promise<AudienceTarget[]>;
  /** every active user of the tenant */
  activeUsers(tenantId: number | null): Promise<number[]>;
};

export type AnnouncementInput = {
  title: string;
  content: string;
  type?: string;
  priority?: AnnouncementPriority;
  targetType?: AnnouncementTargetType;
  targets?: AudienceTarget[];
  expireTime?: string | null;
};

/** undefined stays undefined (not given), null stays null (no expiry). */
const toDate = (v: string | null | undefined) => (typeof v === 'string' ? new Date(v) : v);

export const ANNOUNCEMENT_PUBLISHED_TOPIC = 'announcement.published';

/** Announcements as administrators manage them: drafts, targets, publication, withdrawal. */
export function createAnnouncementService(ctx: AppContext, audience: Audience) {
  const { db, clock } = ctx;

  const findOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.announcementRows.findById(db, scope, id), announcementErrors.notFound);

  /**
   * Checks what needs the database or the clock, reporting every bad field at once: content left
   * empty by sanitizing, targets that agree with targetType and exist in the tenant, a future expiry.
   * `targets` undefined means "kept as they are".
   */
  async function check(
    scope: Scope,
    input: { content?: string; targets?: AudienceTarget[]; expireTime?: Date | null },
    targetType: AnnouncementTargetType,
  ) {
    const details: FieldError[] = [];
    if (input.content === '') details.push({ field: 'content', message: 'is empty once unsafe markup is removed' });
    const targets = input.targets ?? [];
    if (targetType === 'targeted' && input.targets?.length === 0)
      details.push({ field: 'targets', message: 'must name at least one target when targetType is targeted' });
    if (targetType === 'all' && targets.length)
      details.push({ field: 'targets', message: 'must be empty when targetType is all' });
    if (targetType === 'targeted' && targets.length) {
      const missing = await audience.missingTargets(scope.tenantId, targets);
      targets.forEach((t, i) => {
        if (missing.some((m) => m.type === t.type && m.id === t.id))
          details.push({ field: `targets.${i}`, message: `${t.type} ${t.id} does not exist` });
      });
    }
    if (input.expireTime && input.expireTime <= clock())
      details.push({ field: 'expireTime', message: 'must be in the future' });
    if (details.length) throw httpErrors.validation(details);
  }

  return {
    list: (scope: Scope, q: Parameters<typeof repo.pageAnnouncements>[2]) => repo.pageAnnouncements(db, scope, q),

    async get(scope: Scope, id: number) {
      const row = await findOrThrow(scope, id);
      return { ...row, targets: await repo.targetsOf(db, id) };
    },

    async create(scope: Scope, input: AnnouncementInput) {
      const { title, type, priority, targetType = 'all', targets = [] } = input;
      const content = await sanitizeRichHtml(input.content);
      const expireTime = toDate(input.expireTime) ?? null;
      await check(scope, { content, targets, expireTime }, targetType);
      return db.transaction(async (tx) => {
        const row = await repo.announcementRows.insert(tx, scope, {
          title,
          content,
          type,
          priority,
          targetType,
          expireTime,
          createdBy: userOf(scope)?.userId ?? null,
        });
        await repo.replaceTargets(tx, scope, row.id, targets);
        return { ...row, targets };
      });
    },

    /** Drafts and withdrawn ones only; a published announcement must be withdrawn first (409). */
    async update(scope: Scope, id: number, patch: Partial<AnnouncementInput>) {
      const current = await findOrThrow(scope, id);
      if (current.publishStatus === 'published') throw announcementErrors.published();
      const { title, type, priority, targetType = current.targetType } = patch;
      // Switching to 'targeted' needs targets; switching to 'all' drops the old ones.
      const targets = patch.targets ?? (targetType === 'all' || current.targetType === 'all' ? [] : undefined);
      const content = patch.content === undefined ? undefined : await sanitizeRichHtml(patch.content);
      const expireTime = toDate(patch.expireTime);
      await check(scope, { content, targets, expireTime }, targetType);
      return db.transaction(async (tx) => {
        const row = await repo.updateUnpublished(tx, scope, id, {
          title,
          content,
          type,
          priority,
          targetType,
          expireTime,
          updatedAt: clock(),
        });
        // Published meanwhile (the conditional update lost the race): nothing is changed.
        if (!row) throw announcementErrors.published();
        if (targets !== undefined) await repo.replaceTargets(tx, scope, id, targets);
        return { ...row, targets: targets ?? (await repo.targetsOf(tx, id)) };
      });
    },

    async remove(scope: Scope, id: number) {
      const [deleted] = await repo.announcementRows.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw announcementErrors.notFound();
    },

    /** All or nothing: one id missing from the caller's tenant and nothing is deleted. */
    async removeMany(scope: Scope, ids: number[]) {
      return db.transaction(async (tx) => {
        const deleted = await repo.announcementRows.deleteMany(tx, scope, ids);
        if (deleted.length !== ids.length) throw announcementErrors.notFound(ids.filter((id) => !deleted.includes(id)));
        return { affected: ids };
      });
    },

    /**
     * draft|withdrawn → published with publishTime = now, then `announcement.published` is pushed
     * to the audience's sockets. A repeat is a no-op (conditional update): it answers the
     * announcement unchanged and pushes nothing, like notices. An expired one answers 409.
     */
    async publish(scope: Scope, id: number) {
      const row = await repo.markPublished(db, scope, id, clock());
      if (!row) {
        const current = await findOrThrow(scope, id);
        if (current.publishStatus === 'published') return current;
        throw announcementErrors.expired();
      }
      try {
        const userIds =
          row.targetType === 'all'
            ? undefined
            : await audience.usersByTargets(scope.tenantId, await repo.targetsOf(db, row.id));
        await ctx.realtime.publish({
          topic: ANNOUNCEMENT_PUBLISHED_TOPIC,
          tenantId: scope.tenantId,
          userIds,
          payload: { id: row.id, title: row.title, priority: row.priority },
        });
      } catch (err) {
        // Published all the same (users see it in their inbox); only the live push is lost.
        ctx.log.error({ err, announcementId: row.id, requestId: scope.requestId }, 'announcement push failed');
      }
      return row;
    },

    /** published → withdrawn; withdrawing again is a no-op; a draft was never published (409). */
    async withdraw(scope: Scope, id: number) {
      const row = await repo.markWithdrawn(db, scope, id, clock());
      if (row) return row;
      const current = await findOrThrow(scope, id);
      if (current.publishStatus === 'draft') throw announcementErrors.notPublished();
      return current;
    },

    /**
     * Who it reaches now (active users: the whole tenant for 'all', else the targets' users),
     * how many of them read it, and a page of those readers, latest first. Readers who have left
     * the audience since (role or department changed, user disabled) are not counted.
     */
    async readStats(scope: Scope, id: number, page: { page: number; pageSize: number }) {
      const row = await findOrThrow(scope, id);
      const reached =
        row.targetType === 'all'
          ? await audience.activeUsers(scope.tenantId)
          : await audience.usersByTargets(scope.tenantId, await repo.targetsOf(db, id));
      const members = new Set(reached);
      const readers = (await repo.readsOf(db, id)).filter((r) => members.has(r.userId));
      const start = (page.page - 1) * page.pageSize;
      return {
        audience: reached.length,
        read: readers.length,
        unread: reached.length - readers.length,
        readers: { list: readers.slice(start, start + page.pageSize), total: readers.length, ...page },
      };
    },
  };
}

export type AnnouncementService = ReturnType<typeof createAnnouncementService>;
