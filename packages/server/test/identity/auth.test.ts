import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginLogs, refreshTokens, userSessions, users } from '../../src/modules/identity/tables.ts';
import { sha256 } from '../../src/platform/crypto/digest.ts';
import { ADMIN_PASSWORD, call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions, USER_PASSWORD } from '../helpers/fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const loginBody = (username: string, password: string, extra: Record<string, string> = {}) => ({
  username,
  password,
  tenantCode: 'demo',
  ...extra,
});

describe('POST /api/auth/login', () => {
  it('returns an access token, a refresh token and the user; stores only the refresh digest', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', { body: loginBody('admin', ADMIN_PASSWORD) });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 900,
      user: { username: 'admin', tenantId: t.demoTenantId },
    });
    expect(data.accessToken.split('.')).toHaveLength(3);
    expect(data.refreshToken.length).toBeGreaterThanOrEqual(43);
    const stored = await t.database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(data.refreshToken)));
    expect(stored).toHaveLength(1);
    const raw = await t.database.db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, data.refreshToken));
    expect(raw).toHaveLength(0);
  });

  it('refuses a wrong password with 401 and logs the failure', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', { body: loginBody('admin', 'wrong-password') });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('auth.invalid_credentials');
    const logs = await t.database.db.select().from(loginLogs).where(eq(loginLogs.reason, 'invalid_credentials'));
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.every((l) => l.success === false)).toBe(true);
  });

  // The fixture signs its user in once; each test looks at what one more attempt adds.
  const recordsOf = async (userId: number) => {
    const db = t.database.db;
    const sessions = await db.select().from(userSessions).where(eq(userSessions.userId, userId));
    const tokens = (
      await Promise.all(sessions.map((s) => db.select().from(refreshTokens).where(eq(refreshTokens.sessionId, s.id))))
    ).flat();
    const [user] = await db.select().from(users).where(eq(users.id, userId));
    const logs = await db.select().from(loginLogs).where(eq(loginLogs.userId, userId)).orderBy(loginLogs.id);
    return { sessions, tokens, user, logs: logs.map((l) => [l.success, l.reason]) };
  };

  it('commits a sign-in whole: the session, its refresh token, the last sign-in and the log', async () => {
    const u = await createUserWithPermissions(t, []);
    const before = await recordsOf(u.userId);
    const res = await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, USER_PASSWORD) });
    expect(res.statusCode).toBe(200);
    const after = await recordsOf(u.userId);
    expect(after.sessions).toHaveLength(before.sessions.length + 1);
    expect(after.tokens).toHaveLength(before.tokens.length + 1);
    expect(after.user?.lastLoginAt).not.toBeNull();
    expect(after.logs).toEqual([...before.logs, [true, 'ok']]);
  });

  it('keeps a refused attempt’s own writes: the failure counter and the log survive the 401', async () => {
    const u = await createUserWithPermissions(t, []);
    const before = await recordsOf(u.userId);
    const res = await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, 'bad-password') });
    expect(res.statusCode).toBe(401);
    const after = await recordsOf(u.userId);
    expect(after.user?.failedLoginCount).toBe(1);
    expect(after.logs).toEqual([...before.logs, [false, 'invalid_credentials']]);
    expect(after.sessions).toHaveLength(before.sessions.length);
  });

  it('answers an unknown user and an unknown tenant exactly like a wrong password', async () => {
    const a = await call(t.app, 'POST', '/api/auth/login', { body: loginBody('nobody', 'whatever-pass') });
    const b = await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, tenantCode: 'no-such' },
    });
    for (const res of [a, b]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('auth.invalid_credentials');
    }
  });

  it('keeps platform and tenant users apart: the platform admin is not a demo user', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    expect(res.json().data.user.tenantId).toBeNull();
  });

  it('locks an account after the configured failures, refuses even the right password, and unlock clears it', async () => {
    const u = await createUserWithPermissions(t, []);
    for (let i = 0; i < 4; i++) {
      const r = await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, 'bad-password') });
      expect(r.json().error).toBe('auth.invalid_credentials');
    }
    const fifth = await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, 'bad-password') });
    expect(fifth.statusCode).toBe(403);
    expect(fifth.json().error).toBe('auth.account_locked');
    const right = await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, USER_PASSWORD) });
    expect(right.statusCode).toBe(403);
    expect(right.json().error).toBe('auth.account_locked');

    await t.app.identity.auth.unlock(u.userId);
    const after = await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, USER_PASSWORD) });
    expect(after.statusCode).toBe(200);
    const [row] = await t.database.db.select().from(users).where(eq(users.id, u.userId));
    expect(row?.failedLoginCount).toBe(0);
    expect(row?.lockedUntil).toBeNull();
  });

  it('refuses a disabled account', async () => {
    const u = await createUserWithPermissions(t, []);
    await t.database.db.update(users).set({ status: 'disabled' }).where(eq(users.id, u.userId));
    const res = await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, USER_PASSWORD) });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('auth.account_disabled');
  });
});

describe('captcha when enabled', () => {
  let c: TestApp;
  beforeAll(async () => {
    c = await createTestApp();
    await c.app.ctx.settings.update('security', null, { captchaEnabled: true }, null);
  });
  afterAll(async () => c?.close());

  const answerOf = async (captchaId: string) => (await c.cache.get(`captcha:${captchaId}`)) as string;

  it('GET /api/auth/captcha returns an SVG image and an id', async () => {
    const res = await call(c.app, 'GET', '/api/auth/captcha');
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.enabled).toBe(true);
    expect(data.image).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(data.image.split(',')[1], 'base64').toString()).toContain('<svg');
    expect(data.expiresIn).toBeGreaterThan(0);
  });

  it('refuses login without or with a wrong captcha, naming captchaCode', async () => {
    const none = await call(c.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD },
    });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ error: 'auth.captcha_invalid', details: [{ field: 'captchaCode' }] });
    // the message says where a captcha comes from and how a script signs in without one
    expect(none.json().message).toMatch(/^A captcha is required: .*GET \/api\/auth\/captcha.*CAPTCHA_ENABLED=false/);
    const { captchaId } = (await call(c.app, 'GET', '/api/auth/captcha')).json().data;
    const wrong = await call(c.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, captchaId, captchaCode: 'zzzz' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ details: [{ field: 'captchaCode', message: 'wrong or expired' }] });
    expect(wrong.json().message).toMatch(/^The captcha answer is wrong or expired/);
  });

  it('accepts the right answer once (upper-cased), then the same captcha is gone', async () => {
    const { captchaId } = (await call(c.app, 'GET', '/api/auth/captcha')).json().data;
    const answer = await answerOf(captchaId);
    const ok = await call(c.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, captchaId, captchaCode: answer.toUpperCase() },
    });
    expect(ok.statusCode).toBe(200);
    const again = await call(c.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, captchaId, captchaCode: answer },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe('auth.captcha_invalid');
  });

  it('a wrong guess burns the captcha too', async () => {
    const { captchaId } = (await call(c.app, 'GET', '/api/auth/captcha')).json().data;
    const answer = await answerOf(captchaId);
    await call(c.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, captchaId, captchaCode: 'nope' },
    });
    const retry = await call(c.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, captchaId, captchaCode: answer },
    });
    expect(retry.statusCode).toBe(400);
  });
});

describe('rate limits', () => {
  let r: TestApp;
  beforeAll(async () => {
    r = await createTestApp({ env: { LOGIN_ACCOUNT_LIMIT_PER_MINUTE: '3', LOGIN_IP_LIMIT_PER_MINUTE: '8' } });
  });
  afterAll(async () => r?.close());

  it('limits attempts per account with 429 and Retry-After', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) {
      codes.push(
        (await call(r.app, 'POST', '/api/auth/login', { body: { username: 'victim', password: 'guess-guess' } }))
          .statusCode,
      );
    }
    expect(codes.slice(0, 3)).toEqual([401, 401, 401]);
    expect(codes[3]).toBe(429);
    const res = await call(r.app, 'POST', '/api/auth/login', { body: { username: 'victim', password: 'guess-guess' } });
    expect(res.json().error).toBe('request.rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json().retryAfter).toBe(Number(res.headers['retry-after']));
  });

  it('limits attempts per IP across accounts', async () => {
    let last = 0;
    for (let i = 0; i < 6; i++) {
      last = (
        await call(r.app, 'POST', '/api/auth/login', { body: { username: `other${i}`, password: 'guess-guess' } })
      ).statusCode;
    }
    expect(last).toBe(429);
  });
});

describe('refresh, logout, me', () => {
  async function freshPair() {
    const res = await call(t.app, 'POST', '/api/auth/login', { body: loginBody('admin', ADMIN_PASSWORD) });
    return res.json().data as { accessToken: string; refreshToken: string };
  }

  it('rotates the refresh token; the new pair works', async () => {
    const p = await freshPair();
    const res = await call(t.app, 'POST', '/api/auth/refresh', { body: { refreshToken: p.refreshToken } });
    expect(res.statusCode).toBe(200);
    const next = res.json().data;
    expect(next.refreshToken).not.toBe(p.refreshToken);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: next.accessToken })).statusCode).toBe(200);
  });

  it('a reused refresh token revokes the whole session', async () => {
    const p = await freshPair();
    const next = (await call(t.app, 'POST', '/api/auth/refresh', { body: { refreshToken: p.refreshToken } })).json()
      .data;
    const replay = await call(t.app, 'POST', '/api/auth/refresh', { body: { refreshToken: p.refreshToken } });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error).toBe('auth.refresh_token_reused');
    // Everything of that sign-in is dead: the newest refresh token and the access tokens.
    expect(
      (await call(t.app, 'POST', '/api/auth/refresh', { body: { refreshToken: next.refreshToken } })).statusCode,
    ).toBe(401);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: next.accessToken })).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: p.accessToken })).statusCode).toBe(401);
  });

  it('refuses an unknown refresh token and an empty one', async () => {
    const unknown = await call(t.app, 'POST', '/api/auth/refresh', { body: { refreshToken: 'not-a-token' } });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error).toBe('auth.invalid_refresh_token');
    const empty = await call(t.app, 'POST', '/api/auth/refresh', { body: { refreshToken: '' } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().details[0].field).toBe('refreshToken');
  });

  it('logout ends the session: access and refresh tokens stop working', async () => {
    const p = await freshPair();
    const res = await call(t.app, 'POST', '/api/auth/logout', { token: p.accessToken });
    expect(res.statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: p.accessToken })).statusCode).toBe(401);
    expect(
      (await call(t.app, 'POST', '/api/auth/refresh', { body: { refreshToken: p.refreshToken } })).statusCode,
    ).toBe(401);
  });

  it('me shows the user, tenant, permissions and menu tree', async () => {
    const res = await call(t.app, 'GET', '/api/auth/me', { token: t.adminToken });
    expect(res.statusCode).toBe(200);
    const d = res.json().data;
    expect(d.user).toMatchObject({ username: 'admin', isSuper: true, tenantId: null });
    expect(d.permissions).toEqual(['*']);
    expect(Array.isArray(d.menus)).toBe(true);
    expect(d.user).not.toHaveProperty('passwordHash');
  });

  it('a limited user sees exactly their permission codes', async () => {
    const u = await createUserWithPermissions(t, ['system:user:list', 'system:role:list']);
    const d = (await call(t.app, 'GET', '/api/auth/me', { token: u.token })).json().data;
    expect(d.permissions).toEqual(['system:role:list', 'system:user:list']);
    expect(d.user.isSuper).toBe(false);
  });
});

describe('PUT /api/auth/password', () => {
  it('changes the password and ends my other sessions, keeping this one', async () => {
    const u = await createUserWithPermissions(t, []);
    const other = (await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, USER_PASSWORD) })).json()
      .data;
    const res = await call(t.app, 'PUT', '/api/auth/password', {
      token: u.token,
      body: { oldPassword: USER_PASSWORD, newPassword: 'Brand-new-pass-1' },
    });
    expect(res.statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: u.token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: other.accessToken })).statusCode).toBe(401);
    expect(
      (await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, USER_PASSWORD) })).statusCode,
    ).toBe(401);
    expect(
      (await call(t.app, 'POST', '/api/auth/login', { body: loginBody(u.username, 'Brand-new-pass-1') })).statusCode,
    ).toBe(200);
  });

  it('refuses a wrong current password, naming oldPassword, and keeps the old hash', async () => {
    const u = await createUserWithPermissions(t, []);
    const [before] = await t.database.db.select().from(users).where(eq(users.id, u.userId));
    const res = await call(t.app, 'PUT', '/api/auth/password', {
      token: u.token,
      body: { oldPassword: 'not-my-password', newPassword: 'Brand-new-pass-1' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'auth.wrong_password', details: [{ field: 'oldPassword' }] });
    const [after] = await t.database.db.select().from(users).where(eq(users.id, u.userId));
    expect(after?.passwordHash).toBe(before?.passwordHash);
  });

  it('refuses a password shorter than the security setting, naming newPassword', async () => {
    const u = await createUserWithPermissions(t, []);
    const res = await call(t.app, 'PUT', '/api/auth/password', {
      token: u.token,
      body: { oldPassword: USER_PASSWORD, newPassword: 'short' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { field: 'newPassword', message: 'must be at least 8 characters', rule: 'minLength', limit: 8 },
    ]);
  });

  it('requires sign-in', async () => {
    const res = await call(t.app, 'PUT', '/api/auth/password', {
      body: { oldPassword: 'a', newPassword: 'bbbbbbbbbb' },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('platform scope and tenant switching', () => {
  it('a super administrator can act inside a tenant with X-Tenant-Id; an unknown tenant is a 400', async () => {
    const ok = await call(t.app, 'GET', '/api/auth/me', { token: t.adminToken, tenantId: t.demoTenantId });
    expect(ok.statusCode).toBe(200);
    const bad = await call(t.app, 'GET', '/api/auth/me', { token: t.adminToken, tenantId: 999_999 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'identity.unknown_tenant', details: [{ field: 'X-Tenant-Id' }] });
  });
});
