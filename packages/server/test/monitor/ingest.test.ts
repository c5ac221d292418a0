import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEvents, errorGroupIdentities, errorGroups } from '../../src/modules/monitor/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant } from '../helpers/fixtures.ts';
import { CHROME_UA, freshIp, jsError, report } from './ingest-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const db = () => t.database.db;
async function groupOf(id: number) {
  const [g] = await db().select().from(errorGroups).where(eq(errorGroups.id, id));
  if (!g) throw new Error(`no group ${id}`);
  return g;
}
async function eventOf(id: number) {
  const [e] = await db().select().from(errorEvents).where(eq(errorEvents.id, id));
  if (!e) throw new Error(`no event ${id}`);
  return e;
}
async function written() {
  return [await rowCount(t, errorGroups), await rowCount(t, errorEvents), await rowCount(t, errorGroupIdentities)];
}
async function createSite(token: string, origins: string[]) {
  const res = await call(t.app, 'POST', '/api/frontend-errors/sites', {
    token,
    body: { name: `site ${freshIp()}`, allowedOrigins: origins },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; siteKey: string };
}

describe('POST /api/frontend-errors: accepting reports', () => {
  it('accepts every §2.5 error type with 202 and records a group and an event', async () => {
    const types = [
      'js_error',
      'promise_rejection',
      'resource_error',
      'console_error',
      'http_error',
      'white_screen',
      'crash',
    ];
    for (const type of types) {
      const res = await report(
        t,
        { type, message: `kind ${type}`, sourceUrl: 'https://shop.example.com/a.js' },
        { headers: { 'user-agent': CHROME_UA } },
      );
      expect(res.statusCode, res.body).toBe(202);
      const data = res.json().data;
      expect(data.accepted).toBe(true);
      const event = await eventOf(data.eventId);
      expect(event).toMatchObject({ type, groupId: data.groupId, tenantId: null, environment: 'production' });
      expect(event.level).toBe(type === 'crash' ? 'fatal' : 'error');
      expect(event).toMatchObject({ browser: 'Chrome 120', os: 'Windows', userAgent: CHROME_UA });
      const group = await groupOf(data.groupId);
      expect(group).toMatchObject({
        type,
        status: 'unresolved',
        eventCount: 1,
        sourceFile: 'https://shop.example.com/a.js',
      });
    }
  });

  it('keeps release, environment, context requestId, http details, replay id and the top frame', async () => {
    const res = await report(
      t,
      jsError('boom in checkout', 'pay', {
        release: 'v1.4.0',
        environment: 'staging',
        context: { requestId: 'req-12345678', route: '/checkout' },
        http: { method: 'POST', url: 'https://api.example.com/pay', status: 502 },
        replayId: 'replay-1',
        level: 'warning',
      }),
    );
    expect(res.statusCode, res.body).toBe(202);
    const { groupId, eventId } = res.json().data;
    const event = await eventOf(eventId);
    expect(event).toMatchObject({
      release: 'v1.4.0',
      environment: 'staging',
      level: 'warning',
      replayId: 'replay-1',
      context: { requestId: 'req-12345678', route: '/checkout' },
      http: { method: 'POST', url: 'https://api.example.com/pay', status: 502 },
    });
    const group = await groupOf(groupId);
    expect(group).toMatchObject({
      topFrame: 'pay (https://shop.example.com/assets/index-4f2a.js:1:2345)',
      sourceFile: 'https://shop.example.com/assets/index-4f2a.js',
      firstRelease: 'v1.4.0',
      lastRelease: 'v1.4.0',
    });
    const again = await report(t, jsError('boom in checkout', 'pay', { release: 'v1.5.0', environment: 'staging' }));
    expect(again.json().data.groupId).toBe(groupId);
    expect(await groupOf(groupId)).toMatchObject({ firstRelease: 'v1.4.0', lastRelease: 'v1.5.0', eventCount: 2 });
  });

  it('truncates message, stack, URLs and breadcrumb text, and keeps the latest 30 breadcrumbs', async () => {
    const breadcrumbs = Array.from({ length: 40 }, (_, i) => ({
      type: 'click',
      message: `${i}:${'b'.repeat(1500)}`,
      timestamp: 1_700_000_000_000 + i,
    }));
    const res = await report(t, {
      type: 'js_error',
      message: 'm'.repeat(3000),
      stack: `Error\n    at f (https://x.example/a.js:1:1)\n${'s'.repeat(20000)}`,
      sourceUrl: `https://x.example/${'u'.repeat(600)}`,
      pageUrl: `https://x.example/${'p'.repeat(600)}`,
      http: { method: 'GET', url: `https://x.example/${'h'.repeat(600)}`, status: 0 },
      breadcrumbs,
    });
    expect(res.statusCode, res.body).toBe(202);
    const event = await eventOf(res.json().data.eventId);
    expect(event.message).toHaveLength(2000);
    expect(event.stack).toHaveLength(16000);
    expect(event.sourceUrl).toHaveLength(512);
    expect(event.pageUrl).toHaveLength(512);
    expect((event.http as { url: string }).url).toHaveLength(512);
    const kept = event.breadcrumbs as { message: string }[];
    expect(kept).toHaveLength(30);
    expect(kept[0]?.message.startsWith('10:')).toBe(true);
    expect(kept[29]?.message.startsWith('39:')).toBe(true);
    expect(kept[0]?.message).toHaveLength(1000);
  });

  it('answers 400 naming each bad field, and writes nothing', async () => {
    const before = await written();
    const cases: [unknown, string][] = [
      [{ type: 'js_error' }, 'message'],
      [{ type: 'js_error', message: '' }, 'message'],
      [{ type: 'segfault', message: 'x' }, 'type'],
      [{ message: 'x' }, 'type'],
      [{ type: 'js_error', message: 'x', line: 'ten' }, 'line'],
      [{ type: 'js_error', message: 'x', environment: 'prod env!' }, 'environment'],
      [{ type: 'js_error', message: 'x', level: 'panic' }, 'level'],
      [{ type: 'js_error', message: 'x', breadcrumbs: [{ type: 'scroll', timestamp: 1 }] }, 'breadcrumbs.0.type'],
      [{ type: 'js_error', message: 'x', http: { method: 'GET', status: 500 } }, 'http.url'],
      [{ type: 'js_error', message: 'x', sessionId: 's'.repeat(129) }, 'sessionId'],
      [{ type: 'js_error', message: 'x', context: 'not an object' }, 'context'],
    ];
    for (const [body, field] of cases) {
      expectError(await report(t, body), 400, 'request.validation_failed', field);
    }
    expect(await written()).toEqual(before);
  });

  it('refuses a body over 256 KB with 413', async () => {
    const before = await written();
    const res = await report(t, { type: 'js_error', message: 'big', stack: 'x'.repeat(300 * 1024) });
    expectError(res, 413, 'request.body_too_large');
    expect(await written()).toEqual(before);
  });
});

describe('attribution', () => {
  it('a signed-in report belongs to the user’s tenant and counts the user as affected', async () => {
    const me = (await call(t.app, 'GET', '/api/auth/me', { token: t.demoAdminToken })).json().data.user;
    const res = await report(t, jsError('signed-in failure', 'signedIn', { sessionId: 'ignored-session' }), {
      token: t.demoAdminToken,
    });
    expect(res.statusCode, res.body).toBe(202);
    const { groupId, eventId } = res.json().data;
    expect(await eventOf(eventId)).toMatchObject({ tenantId: t.demoTenantId, identity: `u:${me.id}` });
    expect(await groupOf(groupId)).toMatchObject({ tenantId: t.demoTenantId, identityCount: 1 });
    const ids = await db().select().from(errorGroupIdentities).where(eq(errorGroupIdentities.groupId, groupId));
    expect(ids.map((i) => i.identity)).toEqual([`u:${me.id}`]);
  });

  it('a site key from an allowed origin attributes the site’s tenant; the session is the identity', async () => {
    const site = await createSite(t.demoAdminToken, ['https://shop.example.com']);
    const res = await report(t, jsError('site failure', 'siteFn', { sessionId: 'sess-1' }), {
      headers: { 'x-analytics-site-key': site.siteKey, origin: 'https://shop.example.com' },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example.com');
    const event = await eventOf(res.json().data.eventId);
    expect(event).toMatchObject({ tenantId: t.demoTenantId, identity: 'a:sess-1' });
  });

  it('refuses a wrong origin or an unknown key with 403 and writes nothing', async () => {
    const site = await createSite(t.demoAdminToken, ['https://shop.example.com']);
    const before = await written();
    const body = jsError('refused failure');
    const wrong = await report(t, body, {
      headers: { 'x-analytics-site-key': site.siteKey, origin: 'https://evil.example.com' },
    });
    expectError(wrong, 403, 'monitor.origin_not_allowed');
    expect(wrong.headers['access-control-allow-origin']).toBeUndefined();
    const noOrigin = await report(t, body, { headers: { 'x-analytics-site-key': site.siteKey } });
    expectError(noOrigin, 403, 'monitor.origin_not_allowed');
    const unknown = await report(t, body, {
      headers: { 'x-analytics-site-key': 'site_nope', origin: 'https://shop.example.com' },
    });
    expectError(unknown, 403, 'monitor.unknown_site_key');
    expect(await written()).toEqual(before);
  });

  it('an anonymous report without a key is kept at platform scope', async () => {
    const res = await report(t, jsError('anonymous failure', 'anon'));
    const event = await eventOf(res.json().data.eventId);
    expect(event).toMatchObject({ tenantId: null, identity: null });
  });
});

describe('errorIgnorePatterns', () => {
  it('drops matching reports, skips an invalid pattern, and a catastrophic pattern returns fast', async () => {
    const tenant = await createTenant(t);
    const put = await call(t.app, 'PUT', '/api/settings/monitor', {
      token: tenant.adminToken,
      body: { errorIgnorePatterns: ['([', '^ResizeObserver loop', '(a+)+$'] },
    });
    expect(put.statusCode, put.body).toBe(200);
    const site = await createSite(tenant.adminToken, ['https://app.example.com']);
    const headers = { 'x-analytics-site-key': site.siteKey, origin: 'https://app.example.com' };
    const before = await written();

    const dropped = await report(t, jsError('ResizeObserver loop limit exceeded'), { headers });
    expect(dropped.statusCode, dropped.body).toBe(202);
    expect(dropped.json().data).toEqual({ accepted: false, reason: 'ignored' });
    const alsoDropped = await report(t, jsError('aaaa'), { headers });
    expect(alsoDropped.json().data).toEqual({ accepted: false, reason: 'ignored' });
    expect(await written()).toEqual(before);

    // a backtracking engine takes exponential time on this; RE2 is linear
    const started = performance.now();
    const hostile = await report(t, jsError(`${'a'.repeat(1999)}!`), { headers });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(hostile.json().data.accepted).toBe(true);

    // the same messages in another tenant are not dropped
    const elsewhere = await report(t, jsError('ResizeObserver loop limit exceeded'), { token: t.demoAdminToken });
    expect(elsewhere.json().data.accepted).toBe(true);
  });
});

describe('grouping', () => {
  it('messages differing only in digits, UUIDs or hex addresses are one issue', async () => {
    const a = await report(t, jsError('Order 41 of 7d0f6a1c-2b3e-4c5d-8e9f-0a1b2c3d4e5f at 0x7ffee1 failed', 'grp'));
    const b = await report(t, jsError('Order 97 of 00000000-aaaa-bbbb-cccc-dddddddddddd at 0x1 failed', 'grp'));
    expect(a.json().data.groupId).toBe(b.json().data.groupId);
    const group = await groupOf(a.json().data.groupId);
    expect(group).toMatchObject({ eventCount: 2, normalizedMessage: 'Order  of  at  failed' });
    expect(group.message).toContain('Order 41');
  });

  it('a different top frame, environment or type makes another issue', async () => {
    const base = await report(t, jsError('split me', 'first'));
    const otherFrame = await report(t, jsError('split me', 'second'));
    const otherEnv = await report(t, jsError('split me', 'first', { environment: 'staging' }));
    const otherType = await report(t, jsError('split me', 'first', { type: 'console_error' }));
    const ids = [base, otherFrame, otherEnv, otherType].map((r) => r.json().data.groupId);
    expect(new Set(ids).size).toBe(4);
  });

  it('a report on a resolved issue reopens it and clears resolvedAt; an ignored issue stays ignored', async () => {
    const first = await report(t, jsError('regression', 'reg'));
    const groupId = first.json().data.groupId;
    await db()
      .update(errorGroups)
      .set({ status: 'resolved', resolvedAt: new Date() })
      .where(eq(errorGroups.id, groupId));
    await report(t, jsError('regression', 'reg'));
    expect(await groupOf(groupId)).toMatchObject({ status: 'unresolved', resolvedAt: null, eventCount: 2 });

    await db().update(errorGroups).set({ status: 'ignored' }).where(eq(errorGroups.id, groupId));
    await report(t, jsError('regression', 'reg'));
    expect(await groupOf(groupId)).toMatchObject({ status: 'ignored', eventCount: 3 });
  });

  it('50 concurrent reports of one new fingerprint make one issue with exact counts', async () => {
    const body = (i: number) => jsError('concurrent first sighting', 'race', { sessionId: `s-${i % 10}` });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => report(t, body(i))));
    for (const r of results) expect(r.statusCode, r.body).toBe(202);
    const groupIds = new Set(results.map((r) => r.json().data.groupId));
    expect(groupIds.size).toBe(1);
    const [groupId] = [...groupIds] as number[];
    const group = await groupOf(groupId as number);
    expect(group).toMatchObject({ eventCount: 50, identityCount: 10 });
    const events = await db()
      .select()
      .from(errorEvents)
      .where(eq(errorEvents.groupId, groupId as number));
    expect(events).toHaveLength(50);
    const ids = await db()
      .select()
      .from(errorGroupIdentities)
      .where(eq(errorGroupIdentities.groupId, groupId as number));
    expect(ids.map((i) => i.identity).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `a:s-${i}`).sort());
  });
});

describe('transport', () => {
  it('answers the CORS preflight for the report route', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/frontend-errors',
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-analytics-site-key',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example.com');
    expect(res.headers['access-control-allow-methods']).toBe('POST');
    expect(res.headers['access-control-allow-headers']).toBe('content-type, x-analytics-site-key');
    // other routes get no CORS answer
    const other = await t.app.inject({ method: 'OPTIONS', url: '/api/frontend-errors/sites' });
    expect(other.statusCode).toBe(404);
  });

  it('limits reports per IP: the 121st in a minute answers 429 with Retry-After', async () => {
    const ip = freshIp();
    for (let i = 0; i < 120; i++) {
      // invalid bodies: the limiter counts before validation, and nothing is written
      const res = await report(t, {}, { ip });
      expect(res.statusCode).toBe(400);
    }
    const limited = await report(t, jsError('one too many'), { ip });
    expectError(limited, 429, 'request.rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const otherIp = await report(t, jsError('another client'));
    expect(otherIp.statusCode).toBe(202);
  });
});
