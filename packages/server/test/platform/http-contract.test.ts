import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { BODY_LIMIT_BYTES: '2048' } });
});
afterAll(async () => t?.close());

describe('HTTP contract', () => {
  it('wraps success in the envelope and returns X-Request-Id', async () => {
    const res = await call(t.app, 'GET', '/api/health');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/.{8,}/);
    expect(res.json()).toMatchObject({ code: 0, message: 'ok', data: { status: 'ok' } });
  });

  it('keeps a well-formed caller request id', async () => {
    const res = await call(t.app, 'GET', '/api/health', { headers: { 'x-request-id': 'trace-abc-123456' } });
    expect(res.headers['x-request-id']).toBe('trace-abc-123456');
  });

  it('answers an unknown route with 404 in the error envelope', async () => {
    const res = await call(t.app, 'GET', '/api/does-not-exist');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 404, error: 'route.not_found', requestId: res.headers['x-request-id'] });
  });

  it('answers malformed JSON with 400 request.malformed_json', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, error: 'request.malformed_json' });
  });

  it('answers a body over the limit with 413', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', { body: { username: 'x'.repeat(4000), password: 'y' } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 413, error: 'request.body_too_large' });
  });

  it('names every bad field in a validation error', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', { body: { username: '' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('request.validation_failed');
    const fields = body.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['password', 'username']);
  });

  it('checks JSON bodies strictly: a number is not a string, null is not 0', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', { body: { username: 12, password: null } });
    expect(res.statusCode).toBe(400);
    const fields = res
      .json()
      .details.map((d: { field: string }) => d.field)
      .sort();
    expect(fields).toEqual(['password', 'username']);
  });

  it('coerces query-string numbers and rejects non-numbers naming the parameter', async () => {
    const res = await call(t.app, 'GET', '/api/users?page=abc', { token: t.adminToken });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('page');
    const ok = await call(t.app, 'GET', '/api/users?page=1&pageSize=5', { token: t.adminToken });
    expect(ok.json().data).toMatchObject({ page: 1, pageSize: 5 });
  });

  it('answers 401 without a token and never shows a stack', async () => {
    const res = await call(t.app, 'GET', '/api/auth/me');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 401, error: 'auth.unauthenticated' });
    expect(res.body).not.toMatch(/at .*\.ts:\d+/);
  });

  it('answers 401 invalid_token with WWW-Authenticate for a forged token', async () => {
    const res = await call(t.app, 'GET', '/api/auth/me', { token: 'eyJhbGciOiJIUzI1NiJ9.e30.x' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('auth.invalid_token');
    expect(res.headers['www-authenticate']).toContain('invalid_token');
  });

  it('exposes Prometheus metrics by operation', async () => {
    const res = await call(t.app, 'GET', '/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('atrium_http_requests_total{operation="ops.health.get"');
    expect(res.body).toContain('atrium_db_pool_connections');
  });
});
