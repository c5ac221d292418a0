import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roles } from '../../src/modules/identity/tables.ts';
import { unsubscribeToken } from '../../src/modules/messaging/unsubscribe/token.ts';
import { route } from '../../src/platform/http/route.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { catalog } from '../helpers/catalog.ts';

/**
 * The causes the input fuzz test found, each pinned by a direct example, and what only a real
 * socket shows (Node's own 431 and 400, the router's 414): every one answers the envelope with
 * X-Request-Id, and no log line at error level carries what the client sent.
 */
let t: TestApp;
let base: string;
let dataDir: string;
const logLines: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'atrium-bad-input-'));
  t = await createTestApp({
    env: { DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    logDestination: new Writable({
      write(chunk, _enc, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    }),
    // a query that fails inside the database with the caller's text as a parameter
    extraRoutes: (app) => {
      for (const [url, query] of [
        ['/api/test/cast', (v: string) => sql`SELECT ${v}::int AS n`],
        ['/api/test/broken', (v: string) => sql`SELECT * FROM no_such_table WHERE name = ${v}`],
      ] as const) {
        route(app, {
          method: 'POST',
          url,
          operation: `test.${url.split('/').pop()}`,
          auth: 'public',
          schema: { tags: ['Docs'], summary: 'test', body: Type.Object({ v: Type.String() }), response: Type.Null() },
          handler: async (req) => {
            await app.ctx.db.execute(query(req.body.v));
            return null;
          },
        });
      }
      // two of these at once, `first` 1 and 2, lock the same two rows in opposite orders: a real deadlock
      route(app, {
        method: 'POST',
        url: '/api/test/deadlock',
        operation: 'test.deadlock',
        auth: 'public',
        schema: {
          tags: ['Docs'],
          summary: 'test',
          body: Type.Object({ first: Type.Integer({ minimum: 1, maximum: 2 }) }),
          response: Type.Null(),
        },
        handler: async (req) => {
          const [a, b] = req.body.first === 1 ? [1, 2] : [2, 1];
          await app.ctx.db.transaction(async (tx) => {
            await tx.execute(sql`UPDATE test_deadlock SET n = n + 1 WHERE id = ${a}`);
            await tx.execute(sql`SELECT pg_sleep(0.3)`);
            await tx.execute(sql`UPDATE test_deadlock SET n = n + 1 WHERE id = ${b}`);
          });
          return null;
        },
      });
    },
  });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await t.database.db.execute(sql`CREATE TABLE test_deadlock (id int PRIMARY KEY, n int NOT NULL DEFAULT 0)`);
  await t.database.db.execute(sql`INSERT INTO test_deadlock (id) VALUES (1), (2)`);
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** One raw HTTP/1.1 exchange: what Node and the router answer before any route runs. */
function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (d) => {
      data += d.toString();
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
    });
    setTimeout(() => socket.end(), 2000).unref();
  });
}

/** A POST with a body of the given media type, as the caller wrote it. */
function post(url: string, type: string, payload: string, token?: string) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload,
  });
}

function expectEnvelope(res: { status: number; headers: string; body: string }, status: number, error: string) {
  expect(res.status).toBe(status);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ code: status, error });
  expect(res.headers).toContain(`x-request-id: ${body.requestId}`);
}

describe('framework refusals answer the envelope', () => {
  it('a path parameter past 2,048 characters: 414', async () => {
    const res = await fetch(`${base}/api/notification-unsubscribe/${'a'.repeat(3000)}`);
    expect(res.status).toBe(414);
    const body = await res.json();
    expect(body).toMatchObject({ code: 414, error: 'request.uri_too_long' });
    expect(res.headers.get('x-request-id')).toBe(body.requestId);
  });

  it('a URL past the header limit: 431', async () => {
    const res = await raw(`GET /api/health?x=${'a'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    expectEnvelope(res, 431, 'request.headers_too_large');
  });

  it('a header past the limit: 431 echoing the caller’s X-Request-Id, or a fresh one for an id that is not one', async () => {
    const big = `x-filler: ${'b'.repeat(20_000)}\r\n`;
    const kept = await raw(`GET /api/health HTTP/1.1\r\nhost: x\r\nX-Request-Id: trace-431.abc_def\r\n${big}\r\n`);
    expectEnvelope(kept, 431, 'request.headers_too_large');
    expect(JSON.parse(kept.body).requestId).toBe('trace-431.abc_def');

    // after the oversized header: the bytes Node refused still hold it
    const after = await raw(`GET /api/health HTTP/1.1\r\nhost: x\r\n${big}x-request-id: after-the-filler\r\n\r\n`);
    expectEnvelope(after, 431, 'request.headers_too_large');
    expect(JSON.parse(after.body).requestId).toBe('after-the-filler');

    const refused = await raw(`GET /api/health HTTP/1.1\r\nhost: x\r\nx-request-id: no spaces!\r\n${big}\r\n`);
    expectEnvelope(refused, 431, 'request.headers_too_large');
    expect(JSON.parse(refused.body).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('bytes that are not HTTP: 400', async () => {
    expectEnvelope(await raw('HELLO THERE\r\n\r\n'), 400, 'request.malformed');
  });

  it('a URL that is not valid percent-encoding: 400', async () => {
    const res = await raw('GET /api/users/%E0%A4%A HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expectEnvelope(res, 400, 'request.bad_url');
  });
});

describe('the causes the fuzz test found', () => {
  it('NUL in a query value, anonymously: 400 naming the field', async () => {
    expectError(
      await call(t.app, 'GET', '/api/auth/captcha?tenantCode=a%00b'),
      400,
      'request.validation_failed',
      'tenantCode',
    );
  });

  it('NUL and a lone surrogate in JSON bodies: 400 naming the field, nothing stored', async () => {
    const before = await rowCount(t, roles);
    const res = await call(t.app, 'POST', '/api/roles', {
      token: t.demoAdminToken,
      body: { code: 'nul-role', name: 'a\u0000b', permissions: [], menuIds: [] },
    });
    expectError(res, 400, 'request.validation_failed', 'name');
    const surrogate = await post(
      '/api/export-jobs/operation-logs',
      'application/json',
      '{"username":"a\\ud800b"}',
      t.demoAdminToken,
    );
    expectError(surrogate, 400, 'request.validation_failed', 'username');
    expect(await rowCount(t, roles)).toBe(before);
  });

  it('NUL in an OAuth form: invalid_request naming the parameter', async () => {
    const res = await post('/api/oauth2/token/revoke', 'application/x-www-form-urlencoded', 'token=x&client_id=a%00b');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'invalid_request',
      error_description: 'client_id must be valid Unicode text without NUL characters',
    });
  });

  it('ids past their column: 400 naming the id; int8 ids take the whole safe range', async () => {
    for (const id of ['2147483648', '9007199254740993', '1e308']) {
      expectError(
        await call(t.app, 'GET', `/api/users/${id}`, { token: t.demoAdminToken }),
        400,
        'request.validation_failed',
        'id',
      );
    }
    expectError(
      await call(t.app, 'GET', '/api/users?departmentId=2147483648', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'departmentId',
    );
    // in-app messages are keyed by bigserial: an id past int4 is a real id that is not there
    expectError(
      await call(t.app, 'GET', '/api/in-app-messages/2147483648', { token: t.demoAdminToken }),
      404,
      'messaging.in_app_message_not_found',
    );
  });

  it('pages past the maximum: 400 naming page', async () => {
    expectError(
      await call(t.app, 'GET', '/api/users?page=1e308', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'page',
    );
  });

  it('a truncated multipart upload: 400, no file left behind', async () => {
    const files = () => readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    const before = files();
    const b = 'cut';
    const res = await post(
      '/api/files',
      `multipart/form-data; boundary=${b}`,
      `--${b}\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\nhalf a fi`,
      t.demoAdminToken,
    );
    expectError(res, 400, 'request.malformed_multipart');
    expect(files()).toBe(before);
  });

  it('a body of a type the route does not take: 415 naming what it takes', async () => {
    expectError(
      await post('/api/roles', 'text/plain', 'hello', t.demoAdminToken),
      415,
      'request.unsupported_media_type',
    );
    const json = await post('/api/files', 'application/json', '{}', t.demoAdminToken);
    expectError(json, 415, 'request.unsupported_media_type');
    expect(json.json().message).toBe('The request body must be multipart/form-data');
  });

  it('a front-end error report is answered 202, as documented', async () => {
    const res = await call(t.app, 'POST', '/api/frontend-errors', { body: { type: 'js_error', message: 'boom' } });
    expect(res.statusCode).toBe(202);
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
    expect(Object.keys(doc.paths['/api/frontend-errors'].post.responses)).toContain('202');
  });
});

describe('declarations', () => {
  it('route() refuses a request number without a maximum, naming the operation and the field', () => {
    const app = Fastify();
    const declare = (body: ReturnType<typeof Type.Object>) =>
      route(app, {
        method: 'POST',
        url: '/api/test/unbounded',
        operation: 'test.unbounded',
        auth: 'public',
        schema: { tags: ['Docs'], summary: 'test', body, response: Type.Null() },
        handler: async () => null,
      });
    expect(() =>
      declare(Type.Object({ items: Type.Array(Type.Object({ qty: Type.Integer({ minimum: 1 }) })) })),
    ).toThrow("test.unbounded: body.items[].qty is a number without a maximum (give it its column's range)");
    expect(() => declare(Type.Object({ qty: Type.Integer({ minimum: 1, maximum: 10 }) }))).not.toThrow();
  });

  it('route() refuses a default in a PUT or PATCH body: a partial update would reset that field', () => {
    const declare = (method: 'POST' | 'PUT' | 'PATCH', url: string) =>
      route(Fastify(), {
        method,
        url,
        operation: 'test.update',
        auth: 'public',
        schema: {
          tags: ['Docs'],
          summary: 'test',
          body: Type.Object({ enabled: Type.Optional(Type.Boolean({ default: false })) }),
          response: Type.Null(),
        },
        handler: async () => null,
      });
    expect(() => declare('PUT', '/api/test/a')).toThrow(
      'test.update: body.enabled has a default in an update body (it would overwrite stored values)',
    );
    expect(() => declare('PATCH', '/api/test/b')).toThrow('body.enabled has a default');
    expect(() => declare('POST', '/api/test/c')).not.toThrow();
  });
});

describe('unsubscribe links', () => {
  it('open for every event key of the catalog, the longest included', async () => {
    const keys = catalog.all().map((e) => e.key);
    expect(keys).toContain('open-platform.webhook.delivery_failed');
    for (const eventKey of keys) {
      const token = unsubscribeToken(t.app.ctx.secrets, { tenantId: t.demoTenantId, recipientKey: 'u:1', eventKey });
      const res = await call(t.app, 'GET', `/api/notification-unsubscribe/${token}`);
      expect(res.statusCode, `${eventKey} (${token.length} characters)`).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });
});

describe('concurrency', () => {
  it('a deadlock PostgreSQL breaks is a 409 request.concurrent_update to retry, not a 500; the other side commits', async () => {
    const [one, two] = await Promise.all([
      call(t.app, 'POST', '/api/test/deadlock', { body: { first: 1 } }),
      call(t.app, 'POST', '/api/test/deadlock', { body: { first: 2 } }),
    ]);
    const statuses = [one.statusCode, two.statusCode].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = one.statusCode === 409 ? one : two;
    expectError(loser, 409, 'request.concurrent_update');
    expect(loser.headers['retry-after']).toBe('1');
    // the aborted transaction changed nothing: each row was incremented once, by the winner
    const rows = (await t.database.db.execute(sql`SELECT n FROM test_deadlock ORDER BY id`)) as unknown as {
      rows: { n: number }[];
    };
    expect(rows.rows.map((r) => r.n)).toEqual([1, 1]);
  });
});

describe('logs', () => {
  it('input the database refuses is a 400 logged at warn; a failing query logs no parameters', async () => {
    logLines.length = 0;
    const secret = 'sekret-value-0b5e';
    const cast = await call(t.app, 'POST', '/api/test/cast', { body: { v: secret } });
    expectError(cast, 400, 'request.invalid_value');
    const broken = await call(t.app, 'POST', '/api/test/broken', { body: { v: secret } });
    expectError(broken, 500, 'internal.error');
    expect(broken.body).not.toContain('no_such_table');
    const entries = logLines.map((l) => JSON.parse(l) as { level: number; reqId?: string; msg: string });
    const warn = entries.filter((e) => e.level === 40);
    const error = entries.filter((e) => e.level === 50);
    expect(warn.map((e) => e.reqId)).toEqual([cast.json().requestId]);
    expect(error.map((e) => e.reqId)).toEqual([broken.json().requestId]);
    // the query text is there for the developer; the value the client sent is not
    expect(JSON.stringify(error)).toContain('no_such_table');
    expect(logLines.join('\n')).not.toContain(secret);
  });
});
