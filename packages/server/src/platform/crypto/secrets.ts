import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Field encryption for secrets at rest (SMTP passwords, storage keys, channel keys):
 * AES-256-GCM with a key id in every value, so keys can rotate — new values use the first
 * key, old values still decrypt with theirs, and `needsRotation` finds what to re-encrypt.
 *
 * Stored form: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url). The optional `context`
 * (for example `storage_configs.secret:12`) is bound as additional authenticated data, so a
 * value copied into another row or column does not decrypt.
 */
export type SecretKey = { id: string; key: Buffer };

export type SecretBox = {
  currentKeyId: string;
  encrypt(plain: string, context?: string): string;
  decrypt(stored: string, context?: string): string;
  needsRotation(stored: string): boolean;
};

const VERSION = 'v1';

export class SecretError extends Error {}

export function createSecretBox(keys: SecretKey[]): SecretBox {
  const current = keys[0];
  if (!current) throw new SecretError('at least one secret key is required');
  for (const k of keys) {
    if (k.key.length !== 32) throw new SecretError(`secret key ${k.id} must be 32 bytes`);
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(k.id)) throw new SecretError(`secret key id ${k.id} is not a valid id`);
  }
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  const b64 = (b: Buffer) => b.toString('base64url');

  return {
    currentKeyId: current.id,
    encrypt(plain, context = '') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(context));
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, current.id, b64(iv), b64(cipher.getAuthTag()), b64(ct)].join('.');
    },
    decrypt(stored, context = '') {
      const [version, keyId, iv, tag, ct] = stored.split('.');
      if (version !== VERSION || !keyId || iv === undefined || tag === undefined || ct === undefined) {
        throw new SecretError('not an encrypted value');
      }
      const key = byId.get(keyId);
      if (!key) throw new SecretError(`no secret key "${keyId}" is configured`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretError('the value does not decrypt (wrong key, context or tampered)');
      }
    },
    needsRotation: (stored) => stored.split('.')[1] !== current.id,
  };
}

/** The encryption context of a secret stored in a row: `<table>.<column>:<id>`, so a value copied elsewhere does not decrypt. */
export const secretContext = (table: string, column: string, id: number) => `${table}.${column}:${id}`;

/** Parses `SECRET_KEYS`: `id:base64key[,id:base64key…]`, the first being the current key. */
export function parseSecretKeys(raw: string): SecretKey[] {
  return raw.split(',').map((part) => {
    const i = part.indexOf(':');
    if (i < 1) throw new SecretError('each entry must be id:base64key');
    return { id: part.slice(0, i).trim(), key: Buffer.from(part.slice(i + 1).trim(), 'base64') };
  });
}
