import { httpErrors } from '../../../platform/http/errors.ts';
import { normalizeExtension } from '../../files/index.ts';
import type { DriveSettings } from '../settings.ts';
import type { LinkRow } from './shares-repository.ts';

/**
 * A collection link's policy (drive_share_links.collect_policy, issue 15 item 3): what one
 * submission may be (size, extensions, a submitter name) and what the link takes in all
 * (maxFiles, maxTotalMb; null: unlimited), checked against collect_file_count / collect_bytes.
 */
export type CollectPolicy = {
  maxFileSizeMb: number;
  /** normalised like blockedExtensions (lower case, no leading dot); empty: any */
  allowedExtensions: string[];
  requireName: boolean;
  maxFiles: number | null;
  maxTotalMb: number | null;
  instructions: string;
};

export type CollectInput = {
  maxFileSizeMb?: number;
  allowedExtensions?: string[];
  requireName?: boolean;
  maxFiles?: number | null;
  maxTotalMb?: number | null;
  instructions?: string;
};

export const MB = 1024 * 1024;

/** The policy stored on a link (a share link has none). */
export function policyOf(link: Pick<LinkRow, 'collectPolicy'>): CollectPolicy {
  const p = (link.collectPolicy ?? {}) as Partial<CollectPolicy>;
  return {
    maxFileSizeMb: p.maxFileSizeMb ?? 0,
    allowedExtensions: p.allowedExtensions ?? [],
    requireName: p.requireName ?? false,
    maxFiles: p.maxFiles ?? null,
    maxTotalMb: p.maxTotalMb ?? null,
    instructions: p.instructions ?? '',
  };
}

/**
 * `input` over `base` (creation: the tenant's defaults), checked: the file size within the
 * tenant's collectMaxFileSizeMb; extensions normalised and deduplicated.
 */
export function collectPolicy(
  settings: Pick<DriveSettings, 'collectMaxFileSizeMb'>,
  input: CollectInput,
  base?: CollectPolicy,
): CollectPolicy {
  const cap = settings.collectMaxFileSizeMb;
  const maxFileSizeMb = input.maxFileSizeMb ?? base?.maxFileSizeMb ?? cap;
  if (maxFileSizeMb > cap || maxFileSizeMb < 1)
    throw httpErrors.invalidField(
      'collect.maxFileSizeMb',
      `must be between 1 and ${cap} (the tenant's collectMaxFileSizeMb)`,
    );
  const allowed = input.allowedExtensions ?? base?.allowedExtensions ?? [];
  return {
    maxFileSizeMb,
    allowedExtensions: [...new Set(allowed.map(normalizeExtension))],
    requireName: input.requireName ?? base?.requireName ?? false,
    maxFiles: input.maxFiles !== undefined ? input.maxFiles : (base?.maxFiles ?? null),
    maxTotalMb: input.maxTotalMb !== undefined ? input.maxTotalMb : (base?.maxTotalMb ?? null),
    instructions: (input.instructions ?? base?.instructions ?? '').trim(),
  };
}

/** What the link can still take: null where unlimited. */
export function remaining(link: Pick<LinkRow, 'collectPolicy' | 'collectFileCount' | 'collectBytes'>) {
  const p = policyOf(link);
  return {
    files: p.maxFiles === null ? null : Math.max(0, p.maxFiles - link.collectFileCount),
    bytes: p.maxTotalMb === null ? null : Math.max(0, p.maxTotalMb * MB - link.collectBytes),
  };
}

/** A cumulative limit is reached: no file more fits. */
export function collectExhausted(link: Pick<LinkRow, 'collectPolicy' | 'collectFileCount' | 'collectBytes'>) {
  const left = remaining(link);
  return left.files === 0 || left.bytes === 0;
}

/** The policy and the totals, as link views show them (null for a share link). */
export function collectView(link: LinkRow) {
  if (link.kind !== 'collect') return null;
  const left = remaining(link);
  return {
    ...policyOf(link),
    fileCount: link.collectFileCount,
    bytes: link.collectBytes,
    remainingFiles: left.files,
    remainingBytes: left.bytes,
  };
}
