import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/http/errors.ts';
import { route } from '../../src/platform/http/route.ts';
import { IdParams, Ok } from '../../src/platform/http/schemas.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createFuzzer, type Doc } from '../helpers/fuzz-run.ts';

/**
 * The input fuzz's checks, each shown failing on a route planted with its bug (declared with the
 * real route()): a malformed body accepted with 2xx; a status the document does not declare; and
 * a reference to nothing accepted, which only real path values reach.
 */
const THING = 7;
const Named = Type.Object({ name: Type.String({ minLength: 1, maxLength: 10 }) });

function plantedRoutes(app: FastifyInstance) {
  const common = { auth: 'user' as const, audit: false, schema: { tags: ['Docs'], summary: 'planted' } };
  // the body is documented but left to the handler (optionalBody), which forgets to check it
  route(app, {
    ...common,
    method: 'POST',
    url: '/api/test/fuzz/lenient',
    operation: 'test.fuzz.lenient',
    optionalBody: true,
    schema: { ...common.schema, body: Named, response: Ok },
    handler: async () => undefined,
  });
  // answers a 409 its declaration does not say (no `errors: [409]`); a note of any length reaches it
  route(app, {
    ...common,
    method: 'GET',
    url: '/api/test/fuzz/things/:id/state',
    operation: 'test.fuzz.state',
    schema: {
      ...common.schema,
      params: IdParams,
      querystring: Type.Object({ note: Type.Optional(Type.String()) }),
      response: Ok,
    },
    handler: async () => {
      throw new AppError(409, 'test.thing_busy', 'The thing is busy');
    },
  });
  // takes any ownerId for the one thing that exists: a dangling reference, past the 404
  route(app, {
    ...common,
    method: 'PUT',
    url: '/api/test/fuzz/things/:id',
    operation: 'test.fuzz.update',
    schema: {
      ...common.schema,
      params: IdParams,
      body: Type.Object({ ownerId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
      response: Ok,
    },
    handler: async (req) => {
      if (req.params.id !== THING) throw new AppError(404, 'test.thing_not_found', 'No such thing');
    },
  });
}

let t: TestApp;
let dataDir: string;
let doc: Doc;
let run: Awaited<ReturnType<typeof createFuzzer>>;
const planted = (_method: string, path: string) => path.startsWith('/api/test/fuzz/');

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'atrium-fuzz-planted-'));
  t = await createTestApp({ env: { DATA_DIR: dataDir }, extraRoutes: plantedRoutes });
  doc = (await call(t.app, 'GET', '/api/openapi.json')).json() as Doc;
  run = await createFuzzer(t, dataDir);
});
let closed = false;
afterAll(async () => {
  // the last test closes the app, expecting its complaint; should it not run, the store still goes
  if (!closed) await t?.close().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the input fuzz fails on planted bugs', () => {
  it('a malformed body answered 2xx, an undeclared status; a dangling reference only with real path values', async () => {
    const unknownIds = await run(doc, { only: planted });
    const withResources = await run(doc, {
      only: planted,
      resources: {
        valuesFor: (path) => (path.includes('/things/') ? { id: String(THING) } : undefined),
        extrasFor: () => ({}),
      },
    });

    for (const report of [unknownIds, withResources]) {
      expect(report.failures).toEqual(
        expect.arrayContaining([
          'POST /api/test/fuzz/lenient [tenant] body name: huge → 200: a malformed request was accepted',
          'POST /api/test/fuzz/lenient [tenant] body name: missing → 200: a malformed request was accepted',
          expect.stringMatching(
            /^GET \/api\/test\/fuzz\/things\/\{id\}\/state \[tenant\] .* 409 is not in the document/,
          ),
        ]),
      );
    }
    const dangling = 'PUT /api/test/fuzz/things/{id} [tenant] body ownerId: names nothing → 200';
    // with an unknown id the update stops at its 404 and the bug stays hidden
    expect(unknownIds.failures.filter((f) => f.startsWith(dangling))).toEqual([]);
    expect(unknownIds.stoppedAtPath).toBeGreaterThan(0);
    expect(withResources.failures).toContain(`${dangling}: a malformed request was accepted`);
    expect(withResources.stoppedAtPath).toBe(0);
  });

  it('the test app refuses to close quietly over an answer its document does not declare', async () => {
    closed = true;
    await expect(t.close()).rejects.toThrow(/test\.fuzz\.state .*status 409 is not in the document/);
  });
});
