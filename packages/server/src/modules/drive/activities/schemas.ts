import { type TSchema, Type } from 'typebox';
import { BigId, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of a node's activity feed. */
export const ActivityQuery = Type.Object({
  before: Type.Optional(BigId),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  subtree: Type.Boolean({
    default: false,
    description: 'a folder: also what happened to the nodes inside it that you can see',
  }),
});

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ActivityFeedItem = Type.Object({
  id: Type.Integer(),
  spaceId: Type.Integer(),
  nodeId: Nullable(Type.Integer()),
  nodeName: Nullable(Type.String({ description: "the node's current name; null once purged" })),
  actorUserId: Nullable(Type.Integer()),
  actorName: Nullable(Type.String()),
  action: Type.String({ description: '<thing>.<verb>: node.create, grant.add, inherit.break, …' }),
  detail: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
});

export const ActivityFeed = Type.Object({
  list: Type.Array(ActivityFeedItem),
  nextBefore: Nullable(Type.Integer({ description: 'pass as `before` for the next page; null: no more' })),
});
