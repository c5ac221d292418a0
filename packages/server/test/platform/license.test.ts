import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLicense } from '../../src/platform/auth/license.ts';
import { route } from '../../src/platform/http/route.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';

/** Two test-only routes gated by the `drive` feature, declared through the real route() helper. */
function gatedRoutes(app: FastifyInstance) {
  route(app, {
    method: 'GET',
    url: '/api/test/gated',
    operation: 'test.gated.get',
    auth: 'public',
    feature: 'drive',
    schema: { tags: ['Monitor'], summary: 'test only', response: Type.Object({ ok: Type.Literal(true) }) },
    handler: async () => ({ ok: true as const }),
  });
  route(app, {
    method: 'GET',
    url: '/api/test/gated-user',
    operation: 'test.gated_user.get',
    auth: 'user',
    feature: 'drive',
    schema: { tags: ['Monitor'], summary: 'test only', response: Type.Object({ ok: Type.Literal(true) }) },
    handler: async () => ({ ok: true as const }),
  });
}

function withLicense(license: string | undefined) {
  const holder: { t: TestApp | null } = { t: null };
  beforeAll(async () => {
    holder.t = await createTestApp({ ...(license ? { license } : {}), extraRoutes: gatedRoutes });
  });
  afterAll(async () => holder.t?.close());
  return () => holder.t as TestApp;
}

describe('a licence without the feature', () => {
  const t = withLicense('{"licensee":"t","features":["other"]}');

  it('answers 403 license.feature_disabled on a gated public route', async () => {
    const res = await call(t().app, 'GET', '/api/test/gated');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 403, error: 'license.feature_disabled' });
  });

  it('gates before authentication: 403, not 401, without a token', async () => {
    const res = await call(t().app, 'GET', '/api/test/gated-user');
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('license.feature_disabled');
  });

  it('gates the super administrator too', async () => {
    const res = await call(t().app, 'GET', '/api/test/gated-user', { token: t().adminToken });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('license.feature_disabled');
  });

  it('leaves ungated routes alone', async () => {
    expect((await call(t().app, 'GET', '/api/health')).statusCode).toBe(200);
  });

  it('shows x-feature on the gated operation in the OpenAPI document', async () => {
    const doc = (await call(t().app, 'GET', '/api/openapi.json')).json();
    expect(doc.paths['/api/test/gated'].get['x-feature']).toBe('drive');
  });
});

describe('a licence with the feature', () => {
  const t = withLicense('{"licensee":"t","features":["drive"],"expiresAt":"2099-01-01T00:00:00Z"}');

  it('lets the gated route answer', async () => {
    const res = await call(t().app, 'GET', '/api/test/gated');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ ok: true });
    const user = await call(t().app, 'GET', '/api/test/gated-user', { token: t().adminToken });
    expect(user.statusCode).toBe(200);
  });
});

describe('an expired licence with the feature', () => {
  const t = withLicense('{"licensee":"t","features":["drive"],"expiresAt":"2020-01-01T00:00:00Z"}');

  it('answers 403 license.feature_disabled', async () => {
    const res = await call(t().app, 'GET', '/api/test/gated');
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('license.feature_disabled');
  });

  it('shows the licence as expired', async () => {
    const res = await call(t().app, 'GET', '/api/license', { token: t().adminToken });
    expect(res.json().data).toMatchObject({ expiresAt: '2020-01-01T00:00:00.000Z', expired: true });
  });
});

describe('no licence', () => {
  const t = withLicense(undefined);

  it('turns every feature on', async () => {
    expect((await call(t().app, 'GET', '/api/test/gated')).statusCode).toBe(200);
    const res = await call(t().app, 'GET', '/api/license', { token: t().adminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ features: 'all', expiresAt: null, expired: false });
  });
});

describe('loadLicense', () => {
  it('rejects JSON that does not parse, naming LICENSE', () => {
    expect(() => loadLicense('{"licensee": ')).toThrow(/LICENSE is not valid JSON/);
  });

  it('rejects features that are not an array of strings', () => {
    expect(() => loadLicense('{"licensee":"t","features":"drive"}')).toThrow(/LICENSE\.features/);
    expect(() => loadLicense('{"licensee":"t","features":[1]}')).toThrow(/LICENSE\.features/);
    expect(() => loadLicense('{"licensee":"t"}')).toThrow(/LICENSE\.features/);
  });

  it('rejects an expiry that is not a time', () => {
    expect(() => loadLicense('{"features":[],"expiresAt":"soon"}')).toThrow(/LICENSE\.expiresAt/);
  });

  it('names LICENSE when the licence file cannot be read', () => {
    expect(() => loadLicense('/nonexistent/atrium-licence.json')).toThrow(/LICENSE file cannot be read/);
  });

  it('reads a licence file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'atrium-licence-'));
    try {
      const file = join(dir, 'licence.json');
      writeFileSync(file, '{"licensee":"Acme","features":["drive"]}');
      const license = loadLicense(file);
      expect(license.licensee).toBe('Acme');
      expect(license.enabled('drive')).toBe(true);
      expect(license.enabled('payment')).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('turns features off from the expiry on', () => {
    let now = new Date('2030-05-31T23:59:59Z');
    const license = loadLicense('{"features":["drive"],"expiresAt":"2030-06-01T00:00:00Z"}', () => now);
    expect(license.enabled('drive')).toBe(true);
    now = new Date('2030-06-01T00:00:00Z');
    expect(license.enabled('drive')).toBe(false);
  });

  it('without a licence enables everything', () => {
    const license = loadLicense(null);
    expect(license.features).toBe('all');
    expect(license.enabled('anything')).toBe(true);
  });
});
