import { Type } from 'typebox';
import type { SettingsModule } from '../../platform/settings/registry.ts';

/**
 * Runtime settings module `files` (spec §2.2, §8): upload size limits and the MIME allow-list of
 * general (non-drive) uploads. The files module registers it (`ctx.settingsRegistry.register`).
 */
export type FilesSettings = {
  /** uploads above this many MB use init / chunk / complete */
  chunkThresholdMb: number;
  /** largest accepted file, in MB */
  maxSizeMb: number;
  /** MIME types (`type/subtype`) or `type/*` patterns allowed for general uploads */
  mimeAllowList: string[];
};

/** `type/subtype` or `type/*`, lower case, as in RFC 6838 names. */
const MIME_PATTERN = '^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}/([a-z0-9][a-z0-9!#$&^_.+-]{0,126}|\\*)$';

export const DEFAULT_MIME_ALLOW_LIST: string[] = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/tiff',
  'application/pdf',
  'text/plain',
  'text/csv',
  'text/markdown',
  'application/rtf',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  // legacy Office files (.doc/.xls/.ppt) sniff as OLE compound files
  'application/x-cfb',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'application/zip',
];

export const filesSettings: SettingsModule = {
  module: 'files',
  title: 'Managed files',
  fields: {
    chunkThresholdMb: {
      schema: Type.Integer({ minimum: 1, maximum: 1024 }),
      default: 5,
      visibility: 'authenticated',
      description: 'Files larger than this many MB are uploaded in chunks (init, chunk, complete)',
    },
    maxSizeMb: {
      schema: Type.Integer({ minimum: 1, maximum: 1024 * 1024 }),
      default: 1024,
      visibility: 'admin',
      description: 'Largest file accepted, in MB',
    },
    mimeAllowList: {
      schema: Type.Array(Type.String({ pattern: MIME_PATTERN }), { maxItems: 500, uniqueItems: true }),
      default: DEFAULT_MIME_ALLOW_LIST,
      visibility: 'admin',
      description: 'MIME types or type/* patterns accepted by general uploads (the drive uses its own checks)',
    },
  },
};
