import { Type } from 'typebox';
import { AbsoluteUrl } from '../../platform/http/public-links.ts';
import { Binary, Id, INT4_MAX, INT8_SAFE_MAX, PageQuery, Timestamp } from '../../platform/http/schemas.ts';

/** Wire shapes of the managed files module. */
const Sha256 = Type.String({ pattern: '^[A-Fa-f0-9]{64}$', description: 'hex SHA-256 of the content' });
const UploadVisibility = Type.Union([Type.Literal('public'), Type.Literal('private')], {
  description: 'public: readable by anyone with the link; private: signed-in users of the tenant',
});

export const ManagedFile = Type.Object({
  id: Id,
  name: Type.String(),
  mime: Type.String({ description: 'the type the content shows (sniffed); the declared one when it has no signature' }),
  declaredMime: Type.Union([Type.String(), Type.Null()]),
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.String(),
  visibility: Type.Union([Type.Literal('public'), Type.Literal('private'), Type.Literal('restricted')]),
  ownerUserId: Type.Union([Id, Type.Null()]),
  createdAt: Timestamp,
  url: AbsoluteUrl('GET it for the content'),
});

export const FileQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'contained in the name' })),
  visibility: Type.Optional(UploadVisibility),
});

export const ContentQuery = Type.Object({
  inline: Type.Optional(
    Type.Boolean({ description: 'show images and PDF in the browser instead of downloading them' }),
  ),
});

/** The multipart form of a one-request upload (documented; the handler streams it). */
export const UploadForm = Type.Object({
  visibility: Type.Optional(UploadVisibility),
  file: Binary,
});

export const UploadInit = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    size: Type.Integer({ minimum: 1, maximum: INT8_SAFE_MAX, description: 'bytes' }),
    chunkSize: Type.Integer({
      minimum: 1024,
      maximum: 64 * 1024 * 1024,
      description: 'bytes; every chunk but the last',
    }),
    declaredSha256: Type.Optional(Sha256),
    mime: Type.Optional(Type.String({ minLength: 3, maxLength: 255 })),
    visibility: Type.Optional(UploadVisibility),
  },
  { additionalProperties: false },
);

export const UploadSession = Type.Object({
  id: Id,
  name: Type.String(),
  size: Type.Integer(),
  chunkSize: Type.Integer(),
  totalChunks: Type.Integer(),
  receivedChunks: Type.Array(Type.Integer(), { description: 'indexes already stored (resume from the others)' }),
  status: Type.Union([Type.Literal('open'), Type.Literal('completing'), Type.Literal('completed')]),
  fileId: Type.Union([Id, Type.Null()]),
  expiresAt: Timestamp,
});

export const ChunkParams = Type.Object({
  id: Id,
  index: Type.Integer({ minimum: 0, maximum: INT4_MAX }),
});

export const ChunkReceipt = Type.Object({ index: Type.Integer(), size: Type.Integer(), expiresAt: Timestamp });
