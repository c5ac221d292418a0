import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorSourceMaps } from '../../src/modules/monitor/sourcemaps/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { insertEvent, insertGroup } from './issues-fixtures.ts';
import { APP_SOURCES, buildApp, uploadMap } from './sourcemaps-helpers.ts';

const BUNDLE_URL = 'https://shop.example.com/assets/app.min.js?v=3';

let t: TestApp;
let other: TenantFixture;
let dir: string;
let map: Buffer;
/** a real V8 stack of the minified bundle, thrown from util.ts line 3 */
let stack: string;

beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
  dir = await mkdtemp(join(tmpdir(), 'atrium-restore-'));
  const built = await buildApp(dir);
  map = built.map;
  const window: { boom?: () => void } = {};
  runInNewContext(built.js, { window }, { filename: BUNDLE_URL });
  try {
    runInNewContext('window.boom()', { window }, { filename: 'https://shop.example.com/inline.js' });
  } catch (err) {
    stack = (err as Error).stack ?? '';
  }
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function issueWith(tenantId: number, release: string, eventStack = stack) {
  const id = await insertGroup(t, tenantId);
  await insertEvent(t, { id, tenantId }, new Date(), { stack: eventStack, release });
  return id;
}
const detail = async (id: number, token = t.demoAdminToken) =>
  (await call(t.app, 'GET', `/api/frontend-errors/groups/${id}`, { token })).json().data;

describe('restored stack of the issue detail', () => {
  it('maps the minified frames back to the original files, lines, names and source lines', async () => {
    expect(stack).toContain('app.min.js');
    const up = await uploadMap(t, t.demoAdminToken, { release: 'web@1.0.0', fileName: 'app.min.js', data: map });
    expect(up.statusCode, up.body).toBe(201);
    const d = await detail(await issueWith(t.demoTenantId, 'web@1.0.0'));
    const [top, caller, entry] = d.restoredStack;
    expect(top).toMatchObject({ restored: true, line: 3, function: 'explode' });
    expect(top.file).toMatch(/src\/util\.ts$/);
    expect(top.column).toBeGreaterThan(0);
    expect(top.generated).toMatchObject({ file: BUNDLE_URL, line: 1 });
    expect(top.context).toEqual({
      startLine: 1,
      lines: APP_SOURCES['util.ts']?.split('\n'),
    });
    expect(caller).toMatchObject({ restored: true, line: 4 });
    expect(caller.file).toMatch(/src\/main\.ts$/);
    // its caller has no map, so no call site names it: the reported name stays
    expect(caller.function).toBe(caller.generated.function);
    // the inline caller is no bundle with a map
    expect(entry).toMatchObject({
      restored: false,
      reason: 'no_map',
      frame: { file: 'https://shop.example.com/inline.js' },
    });
  });

  it('says per frame why nothing was restored: no release, no map for the release, unreadable map, no position', async () => {
    const none = await detail(await issueWith(t.demoTenantId, ''));
    expect(none.restoredStack.every((f: { reason: string }) => f.reason === 'no_release')).toBe(true);

    const wrongRelease = await detail(await issueWith(t.demoTenantId, 'web@9.9.9'));
    expect(wrongRelease.restoredStack[0]).toMatchObject({ restored: false, reason: 'no_map' });

    // Another tenant's map of the same release never restores this tenant's stack.
    const theirs = await detail(await issueWith(other.tenantId, 'web@1.0.0'), other.adminToken);
    expect(theirs.restoredStack[0]).toMatchObject({ restored: false, reason: 'no_map' });

    const up = await uploadMap(t, t.demoAdminToken, { release: 'broken@1', fileName: 'app.min.js', data: map });
    await t.database.db
      .update(errorSourceMaps)
      .set({ content: Buffer.from('{ truncated'), sha256: 'x' })
      .where(eq(errorSourceMaps.id, up.json().data.id));
    const broken = await detail(await issueWith(t.demoTenantId, 'broken@1'));
    expect(broken.restoredStack[0]).toMatchObject({ restored: false, reason: 'map_unreadable' });

    const far = `TypeError: x\n    at a (${BUNDLE_URL.replace('?v=3', '')}:999:1)`;
    const noPos = await detail(await issueWith(t.demoTenantId, 'web@1.0.0', far));
    expect(noPos.restoredStack).toEqual([
      {
        restored: false,
        reason: 'no_position',
        frame: { function: 'a', file: 'https://shop.example.com/assets/app.min.js', line: 999, column: 1 },
      },
    ]);

    expect((await detail(await issueWith(t.demoTenantId, 'web@1.0.0', 'no frames here'))).restoredStack).toBeNull();
  });

  it('uses the replacing map at once (the parsed-map cache is keyed by content)', async () => {
    const id = await issueWith(t.demoTenantId, 'swap@1');
    await uploadMap(t, t.demoAdminToken, { release: 'swap@1', fileName: 'app.min.js', data: map });
    expect((await detail(id)).restoredStack[0].restored).toBe(true);
    const empty = Buffer.from('{"version":3,"sources":[],"names":[],"mappings":""}');
    await uploadMap(t, t.demoAdminToken, { release: 'swap@1', fileName: 'app.min.js', data: empty });
    expect((await detail(id)).restoredStack[0]).toMatchObject({ restored: false, reason: 'no_position' });
  });
});
