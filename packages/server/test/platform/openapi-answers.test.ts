import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsubscribeToken } from '../../src/modules/messaging/unsubscribe/token.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { catalog } from '../helpers/catalog.ts';
import { expectDocumented, type OpenApiDoc, openApiDoc, operationOf } from '../helpers/documented.ts';

/**
 * Where the document once said something the service does not do, each answer checked against
 * the document as a client (and the console's generated types) reads it. Every other answer the
 * suite provokes is checked too, by status and media type (createTestApp's `close()`).
 */
let t: TestApp;
let doc: OpenApiDoc;
beforeAll(async () => {
  t = await createTestApp();
  doc = await openApiDoc(t.app);
});
afterAll(async () => t?.close());

const FORM = 'application/x-www-form-urlencoded';
const OAUTH_FORMS = ['/api/oauth2/token', '/api/oauth2/token/revoke', '/api/oauth2/token/introspect'];

describe('OAuth 2 protocol endpoints take forms only (RFC 6749 §3.2, RFC 7009 §2.1, RFC 7662 §2.1)', () => {
  it('the document declares a form body, and only the statuses the protocol answers with', () => {
    // the kernel's 404, 409, 413 and 415 are answered as invalid_request, a 400; no credentials
    // are checked before the handler (no 401), no limit applies (no 429); UserInfo's token is
    // invalid_token (401) or lacks the openid scope (insufficient_scope, 403)
    const statuses: Record<string, string[]> = {
      '/api/oauth2/token': ['200', '400', '408', '431', '500', '503'],
      '/api/oauth2/token/revoke': ['200', '400', '408', '431', '500', '503'],
      '/api/oauth2/token/introspect': ['200', '400', '408', '431', '500', '503'],
      '/api/oauth2/userinfo': ['200', '400', '401', '403', '408', '431', '500', '503'],
    };
    for (const [path, expected] of Object.entries(statuses)) {
      const op = operationOf(doc, 'POST', path);
      expect(Object.keys(op.requestBody?.content ?? {}), path).toEqual([FORM]);
      expect(Object.keys(op.responses).sort(), path).toEqual(expected);
      for (const code of expected.filter((c) => !['200', '408', '431'].includes(c))) {
        expect(op.responses[code]?.content?.['application/json']?.schema, `${path} ${code}`).toEqual({
          $ref: '#/components/schemas/OAuthErrorBody',
        });
      }
      // refused by Node before any route runs: the envelope, whatever the route
      for (const code of ['408', '431']) {
        expect(op.responses[code]?.content?.['application/json']?.schema, `${path} ${code}`).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        });
      }
    }
  });

  it('userinfo by POST takes its token in the form or the Authorization header: the form is optional', () => {
    const op = operationOf(doc, 'POST', '/api/oauth2/userinfo');
    expect(op.requestBody?.required).toBe(false);
    expect(op.requestBody?.content[FORM]?.schema).toMatchObject({ properties: { access_token: { type: 'string' } } });
  });

  it('a JSON body is a 400 invalid_request, as documented (not a 415)', async () => {
    for (const path of OAUTH_FORMS) {
      const res = await t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ grant_type: 'client_credentials', client_id: 'x', token: 'y' }),
      });
      expect(res.statusCode, path).toBe(400);
      expect(res.json(), path).toMatchObject({ error: 'invalid_request' });
      expectDocumented(doc, 'POST', path, res);
    }
  });

  it('a form is read: an unknown client is refused by the protocol, as documented', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/oauth2/token',
      headers: { 'content-type': FORM },
      payload: 'grant_type=client_credentials&client_id=nobody&client_secret=x',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_client' });
    expectDocumented(doc, 'POST', '/api/oauth2/token', res);
  });
});

describe('the unsubscribe page answers HTML, its 404 included', () => {
  const path = '/api/notification-unsubscribe/{token}';
  const token = () =>
    unsubscribeToken(t.app.ctx.secrets, {
      tenantId: t.demoTenantId,
      recipientKey: 'u:1',
      eventKey: catalog.all()[0]?.key ?? '',
    });

  it('GET and POST of a valid link: 200 text/html', async () => {
    const url = `/api/notification-unsubscribe/${token()}`;
    const page = await t.app.inject({ method: 'GET', url });
    expect(page.statusCode).toBe(200);
    expectDocumented(doc, 'GET', path, page);
    const done = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': FORM },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('no longer receive');
    expectDocumented(doc, 'POST', path, done);
  });

  it('GET and POST of a link that is not valid: 404 text/html, as documented', async () => {
    const url = `/api/notification-unsubscribe/${'x'.repeat(40)}`;
    for (const method of ['GET', 'POST'] as const) {
      const res = await t.app.inject({
        method,
        url,
        ...(method === 'POST' ? { headers: { 'content-type': FORM }, payload: 'List-Unsubscribe=One-Click' } : {}),
      });
      expect(res.statusCode, method).toBe(404);
      expect(res.headers['content-type'], method).toBe('text/html; charset=utf-8');
      expectDocumented(doc, method, path, res);
    }
  });

  it('the one-click form is in the document (RFC 8058 §3.1), optional: the page’s own button sends it too', () => {
    const op = operationOf(doc, 'POST', path);
    expect(op.requestBody?.required).toBe(false);
    expect(Object.keys(op.requestBody?.content ?? {})).toEqual([FORM]);
  });
});

describe('answers without a JSON body', () => {
  it('a short link’s 302 has no body and names its Location', () => {
    const found = operationOf(doc, 'GET', '/api/drive/public/s/{code}').responses['302'];
    expect(found?.content).toBeUndefined();
    expect(found?.headers).toMatchObject({ Location: { schema: { type: 'string', format: 'uri' } } });
  });

  it('a share link’s QR code is SVG or PNG', () => {
    const qr = operationOf(doc, 'GET', '/api/drive/share-links/{id}/qr').responses['200'];
    expect(Object.keys(qr?.content ?? {}).sort()).toEqual(['image/png', 'image/svg+xml']);
  });

  it('stored bytes are any media type, with a range (206), a revalidation (304) and a range outside (416)', () => {
    for (const path of ['/api/files/{id}/content', '/api/drive/nodes/{id}/content', '/api/tasks/{id}/result']) {
      const { responses } = operationOf(doc, 'GET', path);
      expect(Object.keys(responses['200']?.content ?? {}), path).toEqual(['*/*']);
      expect(Object.keys(responses['206']?.content ?? {}), path).toEqual(['*/*']);
      expect(responses['304']?.content, path).toBeUndefined();
      expect(responses['416']?.content?.['application/json'], path).toBeDefined();
    }
  });

  it('a payment channel’s callback answers each channel’s acknowledgement (test/payment/notify-channels.test.ts sends them)', () => {
    const { responses } = operationOf(doc, 'POST', '/api/public/payment/notify/{channel}');
    expect(Object.keys(responses['200']?.content ?? {})).toEqual(['text/plain']);
    expect(responses['204']?.content).toBeUndefined();
    for (const code of ['401', '500']) {
      expect(Object.keys(responses[code]?.content ?? {}).sort(), code).toEqual(['application/json', 'text/plain']);
    }
  });
});
