import { jwtVerify, SignJWT } from 'jose';

/** Short-lived HS256 access token; it names the session (`sid`) so revocation is immediate. */
export type AccessClaims = { userId: number; sessionId: number; tenantId: number | null };

const ISSUER = 'atrium';
const AUDIENCE = 'atrium-api';

export function accessTokens(secret: string, ttlSeconds: number) {
  // Imported once: handing jose the raw bytes makes it import a WebCrypto key on every call,
  // which cost about three quarters of each verification (every authenticated request).
  const key = crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  return {
    ttlSeconds,
    sign: async (c: AccessClaims, now: Date) =>
      new SignJWT({ sid: c.sessionId, tid: c.tenantId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(c.userId))
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(Math.floor(now.getTime() / 1000))
        .setExpirationTime(Math.floor(now.getTime() / 1000) + ttlSeconds)
        .sign(await key),
    async verify(token: string, now: Date): Promise<AccessClaims | null> {
      try {
        const { payload } = await jwtVerify(token, await key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
          currentDate: now,
        });
        const userId = Number(payload.sub);
        const sessionId = payload.sid;
        const tenantId = payload.tid;
        if (!Number.isInteger(userId) || typeof sessionId !== 'number') return null;
        return { userId, sessionId, tenantId: typeof tenantId === 'number' ? tenantId : null };
      } catch {
        return null;
      }
    },
  };
}
