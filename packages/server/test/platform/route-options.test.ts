import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, httpErrors } from '../../src/platform/http/errors.ts';
import type { ReplyFormat } from '../../src/platform/http/reply-formats.ts';
import { route } from '../../src/platform/http/route.ts';
import { Ok } from '../../src/platform/http/schemas.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';

/**
 * What a route declares instead of patching Fastify: any 2xx status, handlers of `Ok` routes
 * returning nothing, CORS with its preflight, the raw body for signatures, a reply format of its
 * own (a payment channel's acknowledgement, errors included), and an error's internal detail that
 * only the log sees. Each through a test-only route declared with the real route().
 */
const SECRET = 'channel-secret';
const sign = (bytes: string | Buffer) => createHmac('sha256', SECRET).update(bytes).digest('hex');

/** Signature check over the exact bytes received; a mismatch is a 401 whose detail only the log shows. */
function verified(req: { rawBody: Buffer; headers: Record<string, unknown> }): void {
  const expected = sign(req.rawBody);
  if (req.headers['x-signature'] !== expected) {
    throw new AppError(401, 'test.bad_signature', 'The signature does not match', {
      internal: { expected, received: req.headers['x-signature'] },
    });
  }
}

/** A channel answering plain text: `success`, or `fail` with the error's status. */
const textAck: ReplyFormat = {
  success: { mediaType: 'text/plain', schema: () => Type.Literal('success'), body: () => 'success' },
  error: { mediaType: 'text/plain', schema: Type.Literal('fail'), body: () => 'fail' },
};

/** A channel answering XML, the reason of a failure in return_msg. */
const xmlAck: ReplyFormat = {
  success: {
    mediaType: 'application/xml',
    schema: () => Type.String(),
    body: () => '<xml><return_code>SUCCESS</return_code></xml>',
  },
  error: {
    mediaType: 'application/xml',
    schema: Type.String(),
    body: (err) => `<xml><return_code>FAIL</return_code><return_msg>${err.key}</return_msg></xml>`,
  },
};

/** A channel answering JSON of its own shape: `{"code":"SUCCESS"}`, `{"code":"FAIL","message"}`. */
const jsonAck: ReplyFormat = {
  success: {
    schema: () => Type.Object({ code: Type.Literal('SUCCESS') }),
    body: () => ({ code: 'SUCCESS' }),
  },
  error: {
    schema: Type.Object({ code: Type.Literal('FAIL'), message: Type.String() }),
    body: (err) => ({ code: 'FAIL', message: err.message }),
  },
};

const cors = { origins: ['https://app.example.com'], allowHeaders: ['content-type', 'x-trace'] };
const Notify = Type.Object({ trade_no: Type.String({ minLength: 1, maxLength: 64 }) });
const Anything = Type.Union([Type.String({ maxLength: 4096 }), Type.Object({}, { additionalProperties: true })]);
const Signed = Type.Object({ bodyType: Type.String(), bytes: Type.Integer() });

function testRoutes(app: FastifyInstance) {
  const common = { auth: 'public' as const, audit: false };
  const schema = <P extends { response: TSchema; body?: TSchema }>(summary: string, parts: P) => ({
    tags: ['Docs'],
    summary,
    ...parts,
  });
  route(app, {
    ...common,
    method: 'POST',
    url: '/api/test/status/created',
    operation: 'test.status.created',
    status: 201,
    schema: schema('test: 201', { response: Type.Object({ id: Type.Integer() }) }),
    handler: async () => ({ id: 7 }),
  });
  route(app, {
    ...common,
    method: 'GET',
    url: '/api/test/status/non-authoritative',
    operation: 'test.status.non_authoritative',
    status: 203,
    schema: schema('test: 203', { response: Type.Object({ copy: Type.Boolean() }) }),
    handler: async () => ({ copy: true }),
  });
  route(app, {
    ...common,
    method: 'DELETE',
    url: '/api/test/status/no-content',
    operation: 'test.status.no_content',
    status: 204,
    schema: schema('test: 204', { response: Type.Null() }),
    handler: async () => undefined,
  });
  route(app, {
    ...common,
    method: 'POST',
    url: '/api/test/ok',
    operation: 'test.ok.do',
    schema: schema('test: an Ok route whose handler returns nothing', { response: Ok }),
    handler: async () => {},
  });
  route(app, {
    ...common,
    method: 'GET',
    url: '/api/test/cors',
    operation: 'test.cors.get',
    cors,
    schema: schema('test: CORS', { response: Type.Object({ read: Type.Boolean() }) }),
    handler: async () => ({ read: true }),
  });
  route(app, {
    ...common,
    method: 'POST',
    url: '/api/test/cors',
    operation: 'test.cors.post',
    cors,
    schema: schema('test: CORS', { body: Notify, response: Ok }),
    handler: async () => {},
  });
  route(app, {
    ...common,
    method: 'POST',
    url: '/api/test/signed',
    operation: 'test.signed.post',
    errors: [401], // the signature does not match
    rawBody: true,
    bodyLimit: 1024,
    consumes: ['application/json', 'application/x-www-form-urlencoded', 'application/xml', 'text/xml'],
    schema: schema('test: a signed body of any type', { body: Anything, response: Signed }),
    handler: async (req) => {
      verified(req);
      return { bodyType: typeof req.body, bytes: req.rawBody.length };
    },
  });
  route(app, {
    ...common,
    method: 'POST',
    url: '/api/test/ack/text',
    operation: 'test.ack.text',
    errors: [404], // an unknown order
    reply: textAck,
    consumes: ['application/x-www-form-urlencoded'],
    schema: schema('test: a channel acknowledging in plain text', { body: Notify, response: Type.Null() }),
    handler: async (req) => {
      if (req.body.trade_no === 'unknown') throw httpErrors.notFound('test.order_not_found', 'Order');
    },
  });
  route(app, {
    ...common,
    method: 'POST',
    url: '/api/test/ack/xml',
    operation: 'test.ack.xml',
    errors: [401], // the signature does not match
    reply: xmlAck,
    rawBody: true,
    consumes: ['application/xml', 'text/xml'],
    schema: schema('test: a channel acknowledging in XML', {
      body: Type.String({ minLength: 1, maxLength: 4096 }),
      response: Type.Null(),
    }),
    handler: async (req) => verified(req),
  });
  route(app, {
    ...common,
    method: 'POST',
    url: '/api/test/ack/json',
    operation: 'test.ack.json',
    reply: jsonAck,
    schema: schema('test: a channel acknowledging in JSON of its own', { body: Notify, response: Type.Null() }),
    handler: async () => null,
  });
  route(app, {
    ...common,
    method: 'GET',
    url: '/api/test/internal',
    operation: 'test.internal.get',
    errors: [409], // the order changed meanwhile
    schema: schema('test: an error with an internal detail', { response: Ok }),
    handler: async () => {
      throw new AppError(409, 'test.conflict', 'The order changed meanwhile', {
        internal: { upstream: 'ledger said: row 4411 locked by batch-77' },
      });
    },
  });
}

let doc: { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };
let t: TestApp;
const logLines: string[] = [];
beforeAll(async () => {
  t = await createTestApp({
    env: { LOG_LEVEL: 'info' },
    extraRoutes: testRoutes,
    logDestination: new Writable({
      write(chunk, _enc, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    }),
  });
  doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
});
afterAll(async () => t?.close());

const post = (url: string, type: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': type, ...headers }, payload });

const operation = (path: string, method: string) => {
  const op = doc.paths[path]?.[method];
  if (!op) throw new Error(`${method} ${path} is not documented`);
  return op;
};

describe('the document', () => {
  it('is valid OpenAPI with the test routes', async () => {
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
  });
});

describe('success statuses', () => {
  it('answers the 2xx a route declares, and documents it', async () => {
    const created = await call(t.app, 'POST', '/api/test/status/created');
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ code: 0, message: 'ok', data: { id: 7 } });
    const copy = await call(t.app, 'GET', '/api/test/status/non-authoritative');
    expect(copy.statusCode).toBe(203);
    expect(copy.json().data).toEqual({ copy: true });
    const none = await call(t.app, 'DELETE', '/api/test/status/no-content');
    expect(none.statusCode).toBe(204);
    expect(none.body).toBe('');
    expect(Object.keys(operation('/api/test/status/created', 'post').responses)).toContain('201');
    expect(Object.keys(operation('/api/test/status/non-authoritative', 'get').responses)).toContain('203');
    expect(operation('/api/test/status/no-content', 'delete').responses['204']).toEqual({ description: 'No Content' });
  });

  it('refuses at start a status that is not a success, or a 204 that promises a body', () => {
    const declare = (status: number, response: TSchema) =>
      route(t.app, {
        method: 'GET',
        url: '/api/test/never',
        operation: 'test.never.get',
        auth: 'public',
        status: status as 200,
        schema: { tags: ['Docs'], summary: 'never registered', response },
        handler: async () => null,
      });
    expect(() => declare(302, Type.Null())).toThrow('test.never.get: status 302 is not a success (2xx)');
    expect(() => declare(204, Ok)).toThrow('test.never.get: a 204 answers no body');
  });

  it('answers { ok: true } for an Ok route whose handler returns nothing', async () => {
    const res = await call(t.app, 'POST', '/api/test/ok');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ code: 0, message: 'ok', data: { ok: true } });
  });
});

describe('cors', () => {
  const origin = 'https://app.example.com';

  it('names an allowed Origin on every answer of the route, errors included', async () => {
    const ok = await call(t.app, 'GET', '/api/test/cors', { headers: { origin } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(origin);
    expect(ok.headers.vary).toBe('Origin');
    const invalid = await call(t.app, 'POST', '/api/test/cors', { headers: { origin }, body: {} });
    expectError(invalid, 400, 'request.validation_failed', 'trade_no');
    expect(invalid.headers['access-control-allow-origin']).toBe(origin);
  });

  it('names no other origin, and no origin to a caller that sent none', async () => {
    const other = await call(t.app, 'GET', '/api/test/cors', { headers: { origin: 'https://evil.example.com' } });
    expect(other.statusCode).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers.vary).toBe('Origin');
    const none = await call(t.app, 'GET', '/api/test/cors');
    expect(none.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers the preflight with every method declaring cors on the URL, and documents it', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/test/cors',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-trace' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST');
    expect(res.headers['access-control-allow-headers']).toBe('content-type, x-trace');
    expect(res.headers['access-control-max-age']).toBe('86400');
    expect(operation('/api/test/cors', 'options').operationId).toBe('test.cors.preflight');
    // a URL without cors has no preflight
    expect((await t.app.inject({ method: 'OPTIONS', url: '/api/test/ok' })).statusCode).toBe(404);
  });
});

describe('raw body', () => {
  it('gives the exact JSON bytes: a signature over them verifies, one over a re-serialization does not', async () => {
    const bytes = '{ "trade_no" :"T-1",\n  "amount": 100, "note": "caf\u00e9" }';
    const res = await post('/api/test/signed', 'application/json', bytes, { 'x-signature': sign(bytes) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ bodyType: 'object', bytes: Buffer.byteLength(bytes) });
    const reserialized = sign(JSON.stringify(JSON.parse(bytes)));
    expectError(
      await post('/api/test/signed', 'application/json', bytes, { 'x-signature': reserialized }),
      401,
      'test.bad_signature',
    );
  });

  it('gives the exact bytes of a form, still parsed as fields', async () => {
    const bytes = 'trade_no=T-2&subject=%E5%95%86%E5%93%81&sign_type=RSA2';
    const res = await post('/api/test/signed', 'application/x-www-form-urlencoded', bytes, {
      'x-signature': sign(bytes),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ bodyType: 'object', bytes: bytes.length });
  });

  it('takes application/xml and text/xml as a string body with its bytes', async () => {
    const bytes = '<xml><out_trade_no>T-3</out_trade_no><attach>é</attach></xml>';
    for (const type of ['application/xml', 'text/xml; charset=utf-8']) {
      const res = await post('/api/test/signed', type, bytes, { 'x-signature': sign(bytes) });
      expect(res.statusCode, `${type}: ${res.body}`).toBe(200);
      expect(res.json().data).toEqual({ bodyType: 'string', bytes: Buffer.byteLength(bytes) });
    }
  });

  it('enforces the body limit', async () => {
    const bytes = JSON.stringify({ pad: 'x'.repeat(2000) });
    expectError(
      await post('/api/test/signed', 'application/json', bytes, { 'x-signature': sign(bytes) }),
      413,
      'request.body_too_large',
    );
    const xml = `<xml>${'x'.repeat(2000)}</xml>`;
    expectError(await post('/api/test/signed', 'text/xml', xml), 413, 'request.body_too_large');
  });

  it('refuses XML with 415 on a route that does not declare it', async () => {
    expectError(await post('/api/test/ok', 'application/xml', '<xml/>'), 415, 'request.unsupported_media_type');
    const declared = await post('/api/test/cors', 'text/xml', '<xml/>');
    expectError(declared, 415, 'request.unsupported_media_type');
    expect(declared.json().message).toBe('The request body must be application/json');
  });
});

describe('reply formats', () => {
  it('a plain-text channel: success, and fail with a 4xx for bad input and refusals', async () => {
    const ok = await post('/api/test/ack/text', 'application/x-www-form-urlencoded', 'trade_no=T-4');
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    expect(ok.body).toBe('success');

    const invalid = await post('/api/test/ack/text', 'application/x-www-form-urlencoded', 'trade_no=');
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['content-type']).toMatch(/^text\/plain/);
    expect(invalid.body).toBe('fail');
    expect(invalid.headers['x-request-id']).toBeTruthy();

    const unknown = await post('/api/test/ack/text', 'application/x-www-form-urlencoded', 'trade_no=unknown');
    expect([unknown.statusCode, unknown.body]).toEqual([404, 'fail']);
    const wrongType = await post('/api/test/ack/text', 'application/json', '{"trade_no":"T-4"}');
    expect([wrongType.statusCode, wrongType.body]).toEqual([415, 'fail']);
  });

  it('an XML channel: SUCCESS, FAIL for a validation failure and for a bad signature', async () => {
    const bytes = '<xml><out_trade_no>T-5</out_trade_no></xml>';
    const ok = await post('/api/test/ack/xml', 'text/xml', bytes, { 'x-signature': sign(bytes) });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^application\/xml/);
    expect(ok.body).toBe('<xml><return_code>SUCCESS</return_code></xml>');

    const empty = await post('/api/test/ack/xml', 'application/xml', '');
    expect(empty.statusCode).toBe(400);
    expect(empty.headers['content-type']).toMatch(/^application\/xml/);
    expect(empty.body).toBe(
      '<xml><return_code>FAIL</return_code><return_msg>request.validation_failed</return_msg></xml>',
    );

    const forged = await post('/api/test/ack/xml', 'text/xml', bytes, { 'x-signature': sign('other') });
    expect(forged.statusCode).toBe(401);
    expect(forged.body).toBe('<xml><return_code>FAIL</return_code><return_msg>test.bad_signature</return_msg></xml>');
  });

  it('a JSON channel of its own shape, errors serialized by its schema', async () => {
    const ok = await call(t.app, 'POST', '/api/test/ack/json', { body: { trade_no: 'T-6' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ code: 'SUCCESS' });
    const invalid = await call(t.app, 'POST', '/api/test/ack/json', { body: {} });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({ code: 'FAIL', message: 'The request has invalid fields' });
  });

  it('documents each format’s media types and schemas', () => {
    const text = operation('/api/test/ack/text', 'post').responses;
    expect(text['200']).toMatchObject({ content: { 'text/plain': { schema: { enum: ['success'] } } } });
    expect(text['400']).toMatchObject({ content: { 'text/plain': { schema: { enum: ['fail'] } } } });
    const xml = operation('/api/test/ack/xml', 'post').responses;
    expect(xml['401']).toMatchObject({ content: { 'application/xml': { schema: { type: 'string' } } } });
    const json = operation('/api/test/ack/json', 'post').responses;
    expect(json['400']).toMatchObject({
      content: { 'application/json': { schema: { required: ['code', 'message'] } } },
    });
  });
});

describe('internal detail', () => {
  it('is logged under the request id and never sent', async () => {
    logLines.length = 0;
    const res = await call(t.app, 'GET', '/api/test/internal');
    expectError(res, 409, 'test.conflict');
    expect(res.body).not.toContain('batch-77');
    expect(res.json()).not.toHaveProperty('internal');
    const entries = logLines.map((l) => JSON.parse(l) as { reqId?: string; internal?: unknown; error?: string });
    const line = entries.find((e) => e.reqId === res.json().requestId && e.internal !== undefined);
    expect(line).toMatchObject({ error: 'test.conflict', internal: { upstream: expect.stringContaining('batch-77') } });
  });

  it('stays out of a protocol error too', async () => {
    const bytes = '<xml/>';
    const forged = await post('/api/test/ack/xml', 'text/xml', bytes, { 'x-signature': 'nope' });
    expect(forged.statusCode).toBe(401);
    expect(forged.body).not.toContain(sign(bytes));
    expect(logLines.join('\n')).toContain(sign(bytes));
  });
});
