import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { rowOrThrow } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { ErrorLevel, IssueStatus } from '../tables.ts';
import type { IssuesDeps } from './deps.ts';
import { issueErrors } from './errors.ts';
import * as eventRepo from './event-repository.ts';
import * as repo from './group-repository.ts';
import { overview } from './overview-repository.ts';
import { cleanOlderThan } from './retention-repository.ts';

const RECENT_EVENTS = 20;
const LATEST_IDENTITIES = 20;
const DAY_MS = 86_400_000;

/** Console deep links (spec §4.6 rule 4): the issues page opened on one issue, and a session replay. */
export const issueLink = (id: number) => `/monitor/frontend-errors?issue=${id}`;
export const replayLink = (replayId: string) => `/analytics/replays?replay=${encodeURIComponent(replayId)}`;

/** The issue views: list, detail, triage (status, assignee, level, note), batches, overview, events, retention. */
export function createIssueService(ctx: AppContext, deps: IssuesDeps) {
  const { db, clock } = ctx;
  const restore = deps.restore ?? (async () => null);

  const load = (scope: Scope, id: number) => rowOrThrow(repo.groups.findById(db, scope, id), issueErrors.groupNotFound);

  /** All or nothing (docs/api-conventions.md): any id outside the scope answers 404 naming it. */
  async function assertAllExist(scope: Scope, ids: number[]) {
    const found = new Set(await repo.existingIds(db, scope, ids));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) throw issueErrors.groupsNotFound(missing);
  }

  async function assertAssignable(scope: Scope, userId: number) {
    const [user] = await deps.userContacts(scope.tenantId, [userId]);
    if (!user) throw httpErrors.invalidField('assigneeId', 'no such user in this tenant');
    if (!user.active) throw httpErrors.invalidField('assigneeId', 'the user is disabled');
  }

  return {
    async list(scope: Scope, q: repo.ErrorGroupQuery) {
      const page = await repo.pageGroups(db, scope, q);
      return { ...page, list: page.list.map(repo.toIssueView) };
    },

    async detail(scope: Scope, id: number) {
      const group = await load(scope, id);
      const recent = await eventRepo.recentEvents(db, id, RECENT_EVENTS);
      const latest = recent[0] ?? null;
      const replayId = await eventRepo.latestReplayId(db, id);
      return {
        ...repo.toIssueView(group),
        latestEvent: latest ? eventRepo.toEventView(latest) : null,
        restoredStack: latest ? await restore(latest) : null,
        trend: await eventRepo.trend(db, eventRepo.events.where(scope, eventRepo.byGroup(id)), clock()),
        browsers: await eventRepo.distribution(db, id, 'browser'),
        os: await eventRepo.distribution(db, id, 'os'),
        affectedUsers: {
          count: await repo.identityCount(db, id),
          latest: await repo.latestIdentities(db, id, LATEST_IDENTITIES),
        },
        recentEvents: recent.map(eventRepo.toEventSummaryView),
        links: { issue: issueLink(id), replay: replayId ? replayLink(replayId) : null },
      };
    },

    async update(
      scope: Scope,
      id: number,
      input: { status?: IssueStatus; assigneeId?: number | null; level?: ErrorLevel; note?: string },
    ) {
      await load(scope, id);
      if (input.assigneeId != null) await assertAssignable(scope, input.assigneeId);
      const row = await repo.updateGroup(db, scope, id, input, clock());
      if (!row) throw issueErrors.groupNotFound();
      return repo.toIssueView(row);
    },

    async setStatusMany(scope: Scope, ids: number[], status: IssueStatus) {
      await assertAllExist(scope, ids);
      return { affected: await repo.setStatusMany(db, scope, ids, status, clock()) };
    },

    async removeMany(scope: Scope, ids: number[]) {
      await assertAllExist(scope, ids);
      const affected = await db.transaction((tx) => repo.deleteGroupsWithData(tx, scope, ids));
      return { affected };
    },

    overview: (scope: Scope) => overview(db, scope, clock()),

    async events(scope: Scope, q: eventRepo.ErrorEventQuery) {
      const page = await eventRepo.pageEvents(db, scope, q);
      return { ...page, list: page.list.map(eventRepo.toEventView) };
    },

    clean: (scope: Scope, days: number) =>
      db.transaction((tx) => cleanOlderThan(tx, scope, new Date(clock().getTime() - days * DAY_MS))),
  };
}

export type IssueService = ReturnType<typeof createIssueService>;
