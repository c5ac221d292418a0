import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import { type StorageProvider, StorageUnavailable } from '../../../platform/storage/provider.ts';
import type { LocalStorageSettings, S3StorageSettings } from './tables.ts';

/** Checks of storage configurations: settings per kind, the connectivity probe, error text. */
type Kind = 'local' | 's3';
export type StorageSettingsInput = Partial<S3StorageSettings>;

export async function probe(provider: StorageProvider): Promise<null> {
  const key = `atrium-probe/${randomUUID()}.txt`;
  const body = Buffer.from(`atrium storage probe ${new Date().toISOString()}\n`);
  await provider.put(key, Readable.from([body]), { contentType: 'text/plain' });
  try {
    const head = await provider.head(key);
    if (!head) throw new Error('the probe object was written but cannot be found');
    if (head.size !== body.length) throw new Error(`the probe object has ${head.size} bytes, expected ${body.length}`);
    const chunks: Buffer[] = [];
    for await (const c of await provider.get(key)) chunks.push(Buffer.from(c as Buffer));
    if (!Buffer.concat(chunks).equals(body)) throw new Error('the probe object reads back different bytes');
  } finally {
    await provider.delete(key);
  }
  return null;
}

/** An error as a message for the admin (the kit blanks the secret out of it). */
export function describe(err: unknown): string {
  // the 503 every request would answer; the admin testing the configuration needs its cause
  if (err instanceof StorageUnavailable) return describe(err.cause);
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } } | null;
  const status = e?.$metadata?.httpStatusCode;
  let msg = e?.message && e.message !== 'UnknownError' ? e.message : (e?.name ?? 'Unknown error');
  if (status && !msg.includes(String(status))) msg = `${msg} (HTTP ${status})`;
  return msg;
}

/** Checks the settings of a kind; answers the stored (non-secret) settings with defaults filled in. */
export function checkSettings(
  kind: Kind,
  s: StorageSettingsInput,
  hasSecret: boolean,
): LocalStorageSettings | S3StorageSettings {
  const details: FieldError[] = [];
  if (kind === 'local') {
    for (const k of Object.keys(s)) details.push({ field: `settings.${k}`, message: 'is not used by local storage' });
    if (hasSecret) details.push({ field: 'secret', message: 'is not used by local storage' });
    if (details.length) throw httpErrors.validation(details);
    return {};
  }
  if (!s.bucket) details.push({ field: 'settings.bucket', message: 'is required for S3 storage' });
  if (!s.accessKeyId) details.push({ field: 'settings.accessKeyId', message: 'is required for S3 storage' });
  if (!hasSecret) details.push({ field: 'secret', message: 'is required for S3 storage (the secret access key)' });
  const endpoint = s.endpoint?.trim() ?? '';
  if (endpoint) {
    let url: URL | null = null;
    try {
      url = new URL(endpoint);
    } catch {
      details.push({ field: 'settings.endpoint', message: 'must be an http or https URL' });
    }
    if (url && !['http:', 'https:'].includes(url.protocol))
      details.push({ field: 'settings.endpoint', message: 'must be an http or https URL' });
    else if (url && (url.username || url.password))
      details.push({ field: 'settings.endpoint', message: 'must not contain credentials' });
  }
  if (details.length) throw httpErrors.validation(details);
  return {
    endpoint,
    region: s.region ?? 'us-east-1',
    bucket: s.bucket as string,
    accessKeyId: s.accessKeyId as string,
    forcePathStyle: s.forcePathStyle ?? false,
    prefix: (s.prefix ?? '').replace(/\/+$/, ''),
  };
}
