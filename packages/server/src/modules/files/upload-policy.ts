import type { SettingsStore } from '../../platform/settings/store.ts';
import { filesErrors } from './errors.ts';
import { hasBlockedExtension, isExecutable, mimeAllowed, sniffType } from './file-guards.ts';
import type { FilesSettings } from './settings.ts';

/**
 * What an upload may be (spec §4.3 rule 5). General uploads check the `files` MIME allow-list;
 * the drive bypasses it and brings its own blocked extensions. Executable headers are refused
 * everywhere. The stored type is what the bytes show, so a declared type cannot lie.
 */
export type UploadPolicy = {
  /** null: no allow-list (drive uploads) */
  mimeAllowList: string[] | null;
  blockedExtensions: string[];
};

/** Extensions general uploads never accept, whatever the content looks like. */
export const GENERAL_BLOCKED_EXTENSIONS: string[] = [
  ...'exe dll com bat cmd msi msp scr pif cpl hta jar js jse vbs vbe wsf wsh'.split(' '),
  ...'ps1 psm1 sh bash app apk deb rpm lnk reg msc'.split(' '),
];

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** `Text/Plain; charset=utf-8` → `text/plain`; null when it is not a media type at all. */
export function normalizeMime(declared: string | null | undefined): string | null {
  const m = (declared ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return MIME.test(m) ? m : null;
}

/** Refuses a name with a blocked extension before any byte is read; `field` names it in the 400. */
export function checkName(name: string, policy: UploadPolicy, field = 'file'): void {
  if (hasBlockedExtension(name, policy.blockedExtensions))
    throw filesErrors.blockedType('blocked file extension', field);
}

/** Checks the first bytes and answers the type to store: sniffed when known, else the declared one. */
export async function checkContent(
  head: Buffer,
  declaredMime: string | null,
  policy: UploadPolicy,
): Promise<{ mime: string }> {
  if (isExecutable(head)) throw filesErrors.blockedType('executable content');
  const sniffed = await sniffType(head);
  const mime = sniffed?.mime ?? normalizeMime(declaredMime) ?? 'application/octet-stream';
  if (policy.mimeAllowList && !mimeAllowed(mime, policy.mimeAllowList)) throw filesErrors.typeNotAllowed(mime);
  return { mime };
}

const MB = 1024 * 1024;

/** The limits of a general upload in a tenant, from the `files` settings module. */
export type UploadLimits = {
  maxSizeMb: number;
  chunkThresholdMb: number;
  /** largest file */
  maxBytes: number;
  /** largest file of a single-request upload */
  singleBytes: number;
  policy: UploadPolicy;
};

export async function generalUploadLimits(
  settings: Pick<SettingsStore, 'effective'>,
  tenantId: number | null,
): Promise<UploadLimits> {
  const s = await settings.effective<FilesSettings>('files', tenantId);
  const maxBytes = s.maxSizeMb * MB;
  return {
    maxSizeMb: s.maxSizeMb,
    chunkThresholdMb: s.chunkThresholdMb,
    maxBytes,
    singleBytes: Math.min(maxBytes, s.chunkThresholdMb * MB),
    policy: { mimeAllowList: s.mimeAllowList, blockedExtensions: GENERAL_BLOCKED_EXTENSIONS },
  };
}

/** The error for an upload that went past `limit` bytes. */
export function tooLargeError(limits: UploadLimits, limit: number) {
  return limit < limits.maxBytes
    ? filesErrors.useChunkedUpload(limits.chunkThresholdMb)
    : filesErrors.tooLarge(limits.maxSizeMb);
}
