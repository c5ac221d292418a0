import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignJWT } from 'jose';

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
    /**
     * Checked on every authenticated request, so synchronously with node:crypto: jose verifies
     * through WebCrypto, whose HMAC runs on the thread pool and cost a sixth of a cheap request.
     * Only our own tokens are accepted: header exactly HS256, a signature compared in constant
     * time, then issuer, audience and expiry.
     */
    verify(token: string, now: Date): AccessClaims | null {
      const parts = token.split('.');
      if (parts.length !== 3) return null;
      const [head, body, signature] = parts as [string, string, string];
      const expected = createHmac('sha256', key).update(`${head}.${body}`).digest();
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      const header = json(head);
      if (header?.alg !== 'HS256' || header.crit !== undefined) return null;
      const p = json(body);
      if (!p || p.iss !== ISSUER) return null;
      if (!(p.aud === AUDIENCE || (Array.isArray(p.aud) && p.aud.includes(AUDIENCE)))) return null;
      const seconds = Math.floor(now.getTime() / 1000);
      if (typeof p.exp !== 'number' || p.exp <= seconds) return null;
      if (typeof p.nbf === 'number' && p.nbf > seconds) return null;
      const userId = Number(p.sub);
      if (!Number.isInteger(userId) || typeof p.sid !== 'number') return null;
      return { userId, sessionId: p.sid, tenantId: typeof p.tid === 'number' ? p.tid : null };
    },
  };
}

function json(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
