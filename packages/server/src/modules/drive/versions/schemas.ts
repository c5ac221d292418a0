import { Type } from 'typebox';
import { Id, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of a file's versions. */
export const VersionView = Type.Object({
  id: Id,
  nodeId: Id,
  versionNo: Type.Integer({ minimum: 1 }),
  size: Type.Integer({ minimum: 0 }),
  mime: Type.String(),
  sha256: Type.String(),
  pinned: Type.Boolean({ description: 'never removed by the version cap' }),
  comment: Type.String(),
  createdBy: Type.Union([Id, Type.Null()]),
  createdAt: Timestamp,
  current: Type.Boolean({ description: 'the version the file shows' }),
});
export const VersionParams = Type.Object({ id: Id, versionId: Id });
export const PinBody = Type.Object({ pinned: Type.Boolean() }, { additionalProperties: false });
