import { readFileSync } from 'node:fs';

/**
 * Licence feature gates (docs/decisions/0003-licence.md). LICENSE holds either inline JSON or
 * the path of a JSON file: `{ "licensee": "...", "features": ["drive", ...], "expiresAt": "..." }`.
 * Without a licence every feature is on: a self-hosted install works out of the box.
 */
export type License = {
  licensee: string;
  features: ReadonlySet<string> | 'all';
  expiresAt: Date | null;
  enabled(feature: string): boolean;
};

export function loadLicense(source: string | null, now: () => Date = () => new Date()): License {
  if (source === null) return makeLicense('unlicensed (all features)', 'all', null, now);
  let raw: string;
  try {
    raw = source.trimStart().startsWith('{') ? source : readFileSync(source, 'utf8');
  } catch (err) {
    throw new Error(`Invalid configuration: LICENSE file cannot be read (${(err as Error).message})`);
  }
  let parsed: { licensee?: unknown; features?: unknown; expiresAt?: unknown };
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('Invalid configuration: LICENSE is not valid JSON');
  }
  if (!Array.isArray(parsed.features) || !parsed.features.every((f) => typeof f === 'string')) {
    throw new Error('Invalid configuration: LICENSE.features must be an array of strings');
  }
  const expiresAt = typeof parsed.expiresAt === 'string' ? new Date(parsed.expiresAt) : null;
  if (expiresAt && Number.isNaN(expiresAt.getTime())) {
    throw new Error('Invalid configuration: LICENSE.expiresAt must be an RFC 3339 time');
  }
  const licensee = typeof parsed.licensee === 'string' ? parsed.licensee : 'unnamed';
  return makeLicense(licensee, new Set(parsed.features as string[]), expiresAt, now);
}

function makeLicense(
  licensee: string,
  features: ReadonlySet<string> | 'all',
  expiresAt: Date | null,
  now: () => Date,
): License {
  return {
    licensee,
    features,
    expiresAt,
    enabled: (feature) => (expiresAt === null || expiresAt > now()) && (features === 'all' || features.has(feature)),
  };
}
