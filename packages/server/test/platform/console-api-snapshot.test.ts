import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DOCUMENT_SETTINGS,
  differingPlaces,
  driftSummary,
  REGENERATE,
  SNAPSHOT_FILE,
  snapshotEnv,
  snapshotText,
} from '../helpers/api-snapshot.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { openApiDoc } from '../helpers/documented.ts';

/**
 * The live document against the console's snapshot (CONSOLE.md, "One client"): an API change the
 * console was not regenerated for fails here, and after `npm run api:generate` the console's type
 * check names every call it breaks. With UPDATE_API_SNAPSHOT=1 (what `npm run api:generate` runs)
 * the snapshot is written instead.
 */
const UPDATE = process.env.UPDATE_API_SNAPSHOT === '1';

let t: TestApp;
let live: Record<string, unknown>;
beforeAll(async () => {
  t = await createTestApp({ env: snapshotEnv() });
  live = (await openApiDoc(t.app)) as unknown as Record<string, unknown>;
});
afterAll(async () => t?.close());

describe('the console’s snapshot of /api/openapi.json', () => {
  it(UPDATE ? 'is written' : 'is the live document', () => {
    if (UPDATE) {
      writeFileSync(SNAPSHOT_FILE, snapshotText(live));
      return;
    }
    const text = readFileSync(SNAPSHOT_FILE, 'utf8');
    if (text === snapshotText(live)) return;
    const drift = driftSummary(JSON.parse(text), live);
    throw new Error(
      [
        'The OpenAPI document differs from the console’s snapshot (packages/console/src/api/openapi.json):',
        ...(drift.length ? drift : ['  the same content, written differently (formatting)']),
        `Regenerate the snapshot, the console’s types and its permission map with: ${REGENERATE}`,
        'then the console’s type check (npm run typecheck -w @atrium/console) names every call the change breaks.',
      ].join('\n'),
    );
  });

  it('is the same whatever the instance’s configuration: settings reach the document only where it says', async () => {
    const other = await createTestApp({
      env: {
        HOST: '0.0.0.0',
        PORT: '4310',
        PUBLIC_BASE_URL: 'https://atrium.example.com/base',
        OAUTH_CONSENT_URL: 'https://console.example.com/consent',
        LOGIN_IP_LIMIT_PER_MINUTE: '7',
        LOGIN_ACCOUNT_LIMIT_PER_MINUTE: '8',
        BODY_LIMIT_BYTES: '4096',
        ACCESS_TOKEN_TTL_SECONDS: '60',
        REFRESH_TOKEN_TTL_SECONDS: '600',
        OAUTH_ACCESS_TOKEN_TTL_SECONDS: '120',
        OAUTH_REFRESH_TOKEN_TTL_SECONDS: '900',
        OAUTH_CODE_TTL_SECONDS: '20',
        TRUST_PROXY: 'true',
        JOBS_POLL_SECONDS: '5',
        EGRESS_ALLOW_HOSTS: '127.0.0.1',
        // a licence with no feature: licensed routes are refused at request time, still documented
        LICENSE: '{"licensee":"snapshot test","features":[]}',
      },
    });
    try {
      const places = differingPlaces(live, await openApiDoc(other.app)).sort();
      expect(places).toEqual(
        Object.values(DOCUMENT_SETTINGS)
          .flatMap((s) => s.places)
          .sort(),
      );
    } finally {
      await other.close();
    }
  });
});

describe('the drift summary', () => {
  type Op = { operationId: string; responses: Record<string, unknown> };
  const op = (id: string, extra: object = {}): Op => ({
    operationId: id,
    responses: { 200: { description: 'ok' } },
    ...extra,
  });
  const doc = (paths: Record<string, Record<string, Op>>, version = '1') => ({
    openapi: '3.1.0',
    info: { version },
    paths,
    components: {},
  });

  it('names operations added, removed and changed (which parts), and changes elsewhere', () => {
    const before = doc({ '/a': { get: op('a.get'), post: op('a.create') }, '/b': { get: op('b.get') } });
    const after = doc(
      {
        '/a': { get: op('a.get', { responses: { 200: { description: 'ok' }, 404: { description: 'gone' } } }) },
        '/b': { get: op('b.get', { parameters: [{ name: 'q', in: 'query' }] }) },
        '/c': { delete: op('c.delete') },
      },
      '2',
    );
    expect(driftSummary(before, after)).toEqual([
      'operations added (1):',
      '  DELETE /c  c.delete',
      'operations removed (1):',
      '  POST /a  a.create',
      'operations changed (2):',
      '  GET /a  a.get: responses.404',
      '  GET /b  b.get: parameters',
      'elsewhere (1):',
      '  /info/version',
    ]);
  });

  it('stays short: at most 15 lines a section', () => {
    const paths = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`/p${i}`, { get: op(`p.get${i}`) }]));
    const summary = driftSummary(doc({}), doc(paths));
    expect(summary).toHaveLength(17);
    expect(summary.at(-1)).toBe('  … and 25 more');
  });
});
