import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTwoInstances, type TestApp, usingRedis } from '../helpers/app.ts';
import { eventually } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { createRule, logsOf, RULES } from './alerts-helpers.ts';
import { jsError, report } from './ingest-helpers.ts';

let n = 0;
/** a message no other report has sent: a new issue each time */
const fresh = (what: string) => `${what} ${String.fromCharCode(97 + (n % 26))}${'z'.repeat(Math.floor(n++ / 26))}`;

/**
 * The report path reads sites and alert rules from per-instance caches (kept for 30 s). A change
 * made through one instance must reach the report path of the other at once, through cache
 * pub/sub (Redis), not when the entry expires.
 */
describe.runIf(usingRedis)('report-path caches on two instances', () => {
  let close: () => Promise<void>;
  let a: TestApp;
  let b: TestApp;
  let x: TenantFixture;
  beforeAll(async () => {
    ({ a, b, close } = await createTwoInstances());
    x = await createTenant(a);
  });
  afterAll(async () => close?.());

  it("a site's origins, status and deletion changed on one instance apply on the other", async () => {
    const SITES = '/api/frontend-errors/sites';
    const created = await call(a.app, 'POST', SITES, {
      token: x.adminToken,
      body: { name: 'Shop', allowedOrigins: ['https://old.example.com'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const site = created.json().data as { id: number; siteKey: string };
    const from = (origin: string) => ({ headers: { 'x-analytics-site-key': site.siteKey, origin } });
    const answer = async (origin: string) => {
      const res = await report(b, jsError(fresh('site')), from(origin));
      return res.statusCode === 202 ? 'ok' : (res.json().error as string);
    };
    expect(await answer('https://old.example.com')).toBe('ok'); // b now holds the site

    const put = (body: Record<string, unknown>) =>
      call(a.app, 'PUT', `${SITES}/${site.id}`, { token: x.adminToken, body });
    expect((await put({ allowedOrigins: ['https://new.example.com'] })).statusCode).toBe(200);
    expect(
      await eventually(async () => (await answer('https://old.example.com')) === 'monitor.origin_not_allowed'),
    ).toBe(true);
    expect(await answer('https://new.example.com')).toBe('ok');

    expect((await put({ status: 'disabled' })).statusCode).toBe(200);
    expect(await eventually(async () => (await answer('https://new.example.com')) === 'monitor.unknown_site_key')).toBe(
      true,
    );
    expect((await put({ status: 'active' })).statusCode).toBe(200);
    expect(await eventually(async () => (await answer('https://new.example.com')) === 'ok')).toBe(true);

    const del = await call(a.app, 'DELETE', `${SITES}/${site.id}`, { token: x.adminToken });
    expect(del.statusCode, del.body).toBe(200);
    expect(await eventually(async () => (await answer('https://new.example.com')) === 'monitor.unknown_site_key')).toBe(
      true,
    );
  });

  it('an alert rule created or edited on one instance is evaluated by the other at report time', async () => {
    const y = await createTenant(a);
    const fromY = (level?: string) =>
      report(b, jsError(fresh('rule'), 'f', level ? { level } : {}), { token: y.adminToken });
    const firedBy = async (ruleId: number) => (await logsOf(a, ruleId)).length > 0;
    // b reads the tenant's rules (none) and keeps them
    expect((await fromY()).statusCode).toBe(202);

    const rule = (name: string, level: string) =>
      createRule(a, y.adminToken, {
        name,
        enabled: true,
        condition: 'new_error',
        level,
        windowMinutes: 60,
        channels: ['inapp'],
        recipients: [y.adminUserId],
      });
    const created = await rule('created on a', 'error');
    expect((await fromY()).statusCode).toBe(202);
    expect(await eventually(() => firedBy(created.id))).toBe(true);

    // a rule b has read as warning-only, then widened to errors on a
    const edited = await rule('edited on a', 'warning');
    // a rule for errors evaluated with it on the same report: once it has fired, b has decided on
    // the edited one too, so "it did not fire" cannot be read too early
    const witness = await rule('witness on a', 'error');
    expect((await fromY()).statusCode).toBe(202);
    expect(await eventually(() => firedBy(witness.id))).toBe(true);
    expect(await firedBy(edited.id)).toBe(false);
    // (enabled is sent: the update schema's defaults would otherwise fill it in as false)
    const put = await call(a.app, 'PUT', `${RULES}/${edited.id}`, {
      token: y.adminToken,
      body: { level: 'error', enabled: true },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(
      await eventually(async () => {
        await fromY();
        return firedBy(edited.id);
      }),
    ).toBe(true);
    const [log] = await logsOf(a, edited.id);
    expect(log).toMatchObject({
      hits: { trigger: 'report', condition: 'new_error' },
      ruleSnapshot: { level: 'error' },
    });
  });
});
