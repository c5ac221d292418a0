import { type TSchema, Type } from 'typebox';
import { Binary, Id, Timestamp } from '../../../platform/http/schemas.ts';
import { MAX_NOTE, MAX_SUBMITTER_NAME } from './collect-service.ts';

/** Wire shapes of collection links: the anonymous submission and the creator's records. */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const SubmissionForm = Type.Object({
  submitterName: Type.Optional(
    Type.String({
      maxLength: MAX_SUBMITTER_NAME,
      description: 'required when the link asks for it; before the file part',
    }),
  ),
  note: Type.Optional(Type.String({ maxLength: MAX_NOTE, description: 'before the file part' })),
  file: Binary,
});

export const SubmissionReceipt = Type.Object({
  fileName: Type.String({ description: 'the name it was stored under (renamed "a (1).txt" when the name was taken)' }),
  originalName: Type.String(),
  size: Type.Integer(),
  sha256: Type.String(),
  remainingFiles: Nullable(Type.Integer({ description: 'null: unlimited' })),
  remainingBytes: Nullable(Type.Integer({ description: 'null: unlimited' })),
});

export const SubmissionView = Type.Object({
  id: Type.Integer(),
  nodeId: Type.Union([Id, Type.Null()], { description: 'null once the file is purged' }),
  purged: Type.Boolean({ description: 'the file is gone for good; the record stays' }),
  inRecycleBin: Type.Boolean(),
  fileName: Type.String({ description: 'as stored' }),
  originalName: Type.String({ description: 'as sent' }),
  size: Type.Integer(),
  sha256: Type.String(),
  submitterName: Nullable(Type.String()),
  note: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  userAgent: Nullable(Type.String()),
  createdAt: Timestamp,
});
