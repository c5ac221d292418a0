import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The API reference as a reader meets it (docs/decisions/0029-api-reference.md): samples name the
 * configured host.
 */
const PUBLIC_BASE_URL = 'https://atrium.example.com';

let t: TestApp;
let doc: { servers: { url: string }[] };
beforeAll(async () => {
  // with a trailing slash, as an operator may write it
  t = await createTestApp({ env: { PUBLIC_BASE_URL: `${PUBLIC_BASE_URL}/` } });
  doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
});
afterAll(async () => t?.close());

describe('servers', () => {
  it('is PUBLIC_BASE_URL without its trailing slash, so a sample reads https://host/api/…', () => {
    expect(doc.servers.map((s) => s.url)).toEqual([PUBLIC_BASE_URL]);
  });
});
