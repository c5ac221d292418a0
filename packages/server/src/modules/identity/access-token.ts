import { jwtVerify, SignJWT } from 'jose';

/** Short-lived HS256 access token; it names the session (`sid`) so revocation is immediate. */
export type AccessClaims = { userId: number; sessionId: number; tenantId: number | null };

const ISSUER = 'atrium';
const AUDIENCE = 'atrium-api';

export function accessTokens(secret: string, ttlSeconds: number) {
  const key = new TextEncoder().encode(secret);
  return {
    ttlSeconds,
    sign: (c: AccessClaims, now: Date) =>
      new SignJWT({ sid: c.sessionId, tid: c.tenantId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(c.userId))
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(Math.floor(now.getTime() / 1000))
        .setExpirationTime(Math.floor(now.getTime() / 1000) + ttlSeconds)
        .sign(key),
    async verify(token: string, now: Date): Promise<AccessClaims | null> {
      try {
        const { payload } = await jwtVerify(token, key, {
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
