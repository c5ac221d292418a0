import type { SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import { visibleNodes } from '../access/access-repository.ts';
import type { DriveCore } from '../core.ts';
import { findNodes } from '../nodes/node-repository.ts';
import type { ActivityView } from './activity-service.ts';

/**
 * A node's history as its readers see it (GET /api/drive/nodes/{id}/activities): newest first,
 * with actor and node names; for a folder optionally what happened inside it, limited to the
 * nodes the caller can see. The actor's IP address is the audit's (administrators), not shown here.
 */
export type FeedQuery = { limit: number; before?: number; subtree?: boolean };

export function toActivityFeedView(a: ActivityView, names: { actor: Map<number, string>; node: Map<number, string> }) {
  const { ip: _ip, ...rest } = a;
  return {
    ...rest,
    actorName: a.actorUserId === null ? null : (names.actor.get(a.actorUserId) ?? `user #${a.actorUserId}`),
    nodeName: a.nodeId === null ? null : (names.node.get(a.nodeId) ?? null),
  };
}

export function createActivityFeedService(core: Pick<DriveCore, 'db' | 'access' | 'activities' | 'directory'>) {
  const { db, access, activities, directory } = core;
  return {
    async list(scope: Scope, nodeId: number, q: FeedQuery) {
      const c = await access.caller(scope);
      const { node, space } = await access.authorizeNode(c, nodeId, 'browse');
      let subtree: SQL | undefined;
      if (q.subtree && node.type === 'folder') {
        const l = await access.listingAccess(c, space);
        subtree = visibleNodes(l.set, l.spaceRank, l.now);
      }
      const rows = await activities.list(scope, node.id, { limit: q.limit, before: q.before, subtree });
      const actorIds = [...new Set(rows.flatMap((r) => (r.actorUserId === null ? [] : [r.actorUserId])))];
      const nodeIds = [...new Set(rows.flatMap((r) => (r.nodeId === null ? [] : [r.nodeId])))];
      const [actors, nodes] = await Promise.all([
        actorIds.length
          ? directory.describeSubjects(
              scope.tenantId,
              actorIds.map((id) => ({ type: 'user' as const, id })),
            )
          : [],
        findNodes(db, scope, nodeIds),
      ]);
      const names = {
        actor: new Map(actors.map((a) => [a.id, a.name])),
        node: new Map(nodes.map((n) => [n.id, n.name])),
      };
      const last = rows.at(-1);
      return {
        list: rows.map((r) => toActivityFeedView(r, names)),
        nextBefore: rows.length === q.limit && last ? last.id : null,
      };
    },
  };
}

export type ActivityFeedService = ReturnType<typeof createActivityFeedService>;
