import { Type } from 'typebox';
import { Binary, Id, INT4_MAX, INT8_SAFE_MAX, NullableTimestamp, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of drive uploads (single, chunked, instant) and content. */
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Sha256 = Type.String({ pattern: '^[A-Fa-f0-9]{64}$', description: 'hex SHA-256 of the content' });
const Size = Type.Integer({ minimum: 0, maximum: INT8_SAFE_MAX, description: 'bytes' });

export const Conflict = Type.Union([Type.Literal('keepBoth'), Type.Literal('overwrite'), Type.Literal('skip')], {
  description:
    'a live item of the same name in the folder: keepBoth (default) stores the new file as "name (1).ext"; ' +
    'overwrite makes it a new version of that file (a folder of that name: 409); skip stores nothing and answers the existing file',
});

/** Where an upload goes: a folder (parentId, or the space root) or an existing file (nodeId: its next version). */
const target = {
  spaceId: Type.Optional(Id),
  parentId: Type.Optional({ ...Id, description: 'the folder; the space root when omitted' }),
  nodeId: Type.Optional({ ...Id, description: 'a file: the upload becomes its next version (spaceId may be omitted)' }),
  conflict: Type.Optional(Conflict),
};

/** A file (or folder) node as an upload answers it. */
export const FileNode = Type.Object({
  id: Id,
  spaceId: Id,
  parentId: Nullable(Id),
  type: Type.Union([Type.Literal('folder'), Type.Literal('file')]),
  name: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  mime: Nullable(Type.String()),
  sha256: Nullable(Type.String()),
  versionNo: Type.Integer({ minimum: 0 }),
  currentVersionId: Nullable(Id),
  lockedBy: Nullable(Id),
  lockExpiresAt: NullableTimestamp,
  createdBy: Nullable(Id),
  updatedBy: Nullable(Id),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const UploadedNode = Type.Object({
  ...FileNode.properties,
  skipped: Type.Boolean({ description: 'true: conflict=skip found a file of that name; nothing was stored' }),
});

export const UploadQuery = Type.Object(target);

export const UploadForm = Type.Object({ file: Binary });

/** In a JSON body the space is always named (for nodeId too: it must be that file's space). */
const bodyTarget = { ...target, spaceId: Id };

export const UploadInitBody = Type.Object(
  {
    ...bodyTarget,
    name: Type.String({ minLength: 1, maxLength: 255 }),
    size: Type.Integer({ minimum: 1, maximum: INT8_SAFE_MAX, description: 'bytes' }),
    chunkSize: Type.Integer({
      minimum: 1024,
      maximum: 64 * 1024 * 1024,
      description: 'bytes; every chunk but the last',
    }),
    contentHash: Type.Optional({
      ...Sha256,
      description:
        'SHA-256 the client computed: checked against the server-computed hash on complete (a mismatch aborts)',
    }),
    mime: Type.Optional(Type.String({ minLength: 3, maxLength: 255 })),
  },
  { additionalProperties: false },
);

const SessionFields = {
  sessionId: Id,
  spaceId: Id,
  parentId: Nullable(Id),
  nodeId: Nullable(Id),
  name: Type.String(),
  size: Type.Integer(),
  chunkSize: Type.Integer(),
  totalChunks: Type.Integer(),
  receivedChunks: Type.Array(Type.Integer(), { description: 'indexes already stored (resume from the others)' }),
  status: Type.Union([Type.Literal('open'), Type.Literal('completing'), Type.Literal('completed')]),
  expiresAt: Timestamp,
};

export const UploadSession = Type.Object(SessionFields);

export const UploadInitResult = Type.Union([
  Type.Object({ ...SessionFields, skipped: Type.Literal(false) }),
  Type.Object({
    skipped: Type.Literal(true, { description: 'conflict=skip found a file of that name: no session was opened' }),
    node: FileNode,
  }),
]);

export const ChunkQuery = Type.Object({ sessionId: Id, index: Type.Integer({ minimum: 0, maximum: INT4_MAX }) });
export const ChunkReceipt = Type.Object({ index: Type.Integer(), size: Type.Integer(), expiresAt: Timestamp });
export const CompleteBody = Type.Object({ sessionId: Id }, { additionalProperties: false });

export const PrecheckBody = Type.Object(
  {
    ...bodyTarget,
    name: Type.String({ minLength: 1, maxLength: 255 }),
    size: Size,
    sha256: Sha256,
  },
  { additionalProperties: false },
);

export const PrecheckResult = Type.Object({
  instant: Type.Boolean({ description: 'true: stored from content already in the drive; node is the new file' }),
  skipped: Type.Boolean({ description: 'true: conflict=skip found a file of that name; node is that file' }),
  node: Nullable(FileNode),
  chunkThresholdMb: Type.Integer({ description: 'files above it are uploaded in chunks' }),
  useChunked: Type.Boolean({ description: 'when not instant: whether this size needs the chunked upload' }),
});

export const ContentQuery = Type.Object({
  download: Type.Optional(
    Type.Boolean({ description: 'true: a download (needs the downloader role); else a preview' }),
  ),
  versionId: Type.Optional({ ...Id, description: 'a version of this file; the current one when omitted' }),
});
