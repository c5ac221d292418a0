import { randomUUID } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT } from 'jose';
import type { SecretBox } from '../../../platform/crypto/secrets.ts';
import type { Db } from '../../../platform/db/client.ts';
import * as repo from './signing-key-repository.ts';

const ALG = 'RS256';
/** retired keys stay published this long, past the longest id_token lifetime */
const RETIRED_PUBLISHED_MS = 7 * 86_400_000;

type ActiveKey = { kid: string; key: CryptoKey };

/**
 * id_token signing (OIDC Core §2, RS256 as §15.1 requires). The key pair is created once by
 * whichever instance needs it first and shared through the database; the private key is stored
 * encrypted with SECRET_KEYS. Each instance keeps the imported key in memory.
 */
export function signingKeys(deps: { db: Db; secrets: SecretBox }) {
  const { db, secrets } = deps;
  let active: Promise<ActiveKey> | null = null;

  async function loadActive(): Promise<ActiveKey> {
    let row = await repo.findActiveKey(db);
    if (!row) {
      const { publicKey, privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
      const kid = randomUUID();
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
      const pem = await exportPKCS8(privateKey);
      // a concurrent first use on another instance wins the partial unique index; its key is used
      await repo.insertKeyUnlessActive(db, {
        kid,
        alg: ALG,
        publicJwk,
        privateKeyEncrypted: secrets.encrypt(pem, `oauth_signing_keys:${kid}`),
      });
      row = await repo.findActiveKey(db);
    }
    if (!row) throw new Error('no active id_token signing key');
    const pem = secrets.decrypt(row.privateKeyEncrypted, `oauth_signing_keys:${row.kid}`);
    return { kid: row.kid, key: await importPKCS8(pem, ALG) };
  }

  function current(): Promise<ActiveKey> {
    active ??= loadActive().catch((err) => {
      active = null;
      throw err;
    });
    return active;
  }

  return {
    alg: ALG,
    async sign(claims: Record<string, unknown>, now: Date, ttlSeconds: number): Promise<string> {
      const { kid, key } = await current();
      const iat = Math.floor(now.getTime() / 1000);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .sign(key);
    },
    /** RFC 7517 JWK Set: the active key and recently retired ones. */
    async jwks(now: Date): Promise<{ keys: Record<string, unknown>[] }> {
      await current(); // creates the first key if none exists yet
      const rows = await repo.publishedKeys(db, new Date(now.getTime() - RETIRED_PUBLISHED_MS));
      return { keys: rows.map((r) => r.jwk) };
    },
  };
}

export type SigningKeys = ReturnType<typeof signingKeys>;
