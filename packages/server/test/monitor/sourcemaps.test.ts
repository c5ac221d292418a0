import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorSourceMaps } from '../../src/modules/monitor/sourcemaps/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { buildApp, MAPS_URL, uploadMap } from './sourcemaps-helpers.ts';

let t: TestApp;
let other: TenantFixture;
let dir: string;
let map: Buffer;
beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
  dir = await mkdtemp(join(tmpdir(), 'atrium-maps-'));
  map = (await buildApp(dir)).map;
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const MB = 1024 * 1024;

describe('/api/frontend-errors/source-maps', () => {
  it('uploads, lists (filtered by release), replaces the same release + file name, and deletes', async () => {
    const token = t.demoAdminToken;
    const first = await uploadMap(t, token, { release: 'web@1.0.0', fileName: 'app.min.js', data: map });
    expect(first.statusCode, first.body).toBe(201);
    const created = first.json().data;
    expect(created).toMatchObject({ release: 'web@1.0.0', fileName: 'app.min.js', size: map.length });
    expect(created.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(created.uploadedBy).toEqual(expect.any(Number));

    const other = await uploadMap(t, token, { release: 'web@2.0.0', fileName: 'app.min.js', data: map });
    expect(other.statusCode).toBe(201);

    const all = (await call(t.app, 'GET', MAPS_URL, { token })).json().data;
    expect(all.total).toBe(2);
    expect(all.list[0]).not.toHaveProperty('content');
    const v1 = (await call(t.app, 'GET', `${MAPS_URL}?release=web@1.0.0`, { token })).json().data;
    expect(v1.list.map((m: { id: number }) => m.id)).toEqual([created.id]);

    // Replace: same release and file name → one row, the new bytes.
    const changed = Buffer.from(JSON.stringify({ ...JSON.parse(map.toString()), file: 'changed' }));
    const replaced = await uploadMap(t, token, { release: 'web@1.0.0', fileName: 'app.min.js', data: changed });
    expect(replaced.statusCode, replaced.body).toBe(201);
    expect(replaced.json().data.size).toBe(changed.length);
    const rows = await t.database.db.select().from(errorSourceMaps).where(eq(errorSourceMaps.release, 'web@1.0.0'));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.content.equals(changed)).toBe(true);

    const del = await call(t.app, 'DELETE', `${MAPS_URL}/${replaced.json().data.id}`, { token });
    expect(del.statusCode).toBe(200);
    expect((await call(t.app, 'GET', `${MAPS_URL}?release=web@1.0.0`, { token })).json().data.total).toBe(0);
    expectError(
      await call(t.app, 'DELETE', `${MAPS_URL}/${replaced.json().data.id}`, { token }),
      404,
      'monitor.source_map_not_found',
    );
  });

  it('accepts a map of several MB (above the JSON body limit) and refuses one over 20 MB with 413, storing nothing', async () => {
    const token = t.demoAdminToken;
    const parsed = JSON.parse(map.toString());
    const big = Buffer.from(JSON.stringify({ ...parsed, sourcesContent: ['x'.repeat(3 * MB)] }));
    const ok = await uploadMap(t, token, { release: 'big@1', fileName: 'app.min.js', data: big });
    expect(ok.statusCode, ok.body).toBe(201);

    const before = await rowCount(t, errorSourceMaps);
    const huge = Buffer.from(JSON.stringify({ ...parsed, sourcesContent: ['x'.repeat(20 * MB)] }));
    expectError(
      await uploadMap(t, token, { release: 'big@1', fileName: 'app.min.js', data: huge }),
      413,
      'monitor.source_map_too_large',
      'file',
    );
    expect(await rowCount(t, errorSourceMaps)).toBe(before);
    // the earlier map of that release was not replaced by the refused one
    const kept = (await call(t.app, 'GET', `${MAPS_URL}?release=big@1`, { token })).json().data.list;
    expect(kept[0].size).toBe(big.length);
  });

  it('answers 400 naming the field for missing fields and for files that are not v3 maps, writing nothing', async () => {
    const token = t.demoAdminToken;
    const before = await rowCount(t, errorSourceMaps);
    const missing = await uploadMap(t, token, { data: map });
    expect(missing.statusCode).toBe(400);
    expect(
      missing
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['fileName', 'release']);
    expectError(
      await uploadMap(t, token, { release: 'r', fileName: 'app.min.js' }),
      400,
      'request.validation_failed',
      'file',
    );
    expectError(
      await uploadMap(t, token, { release: 'r', fileName: 'assets/app.min.js', data: map }),
      400,
      'request.validation_failed',
      'fileName',
    );
    const invalid: [string, Buffer][] = [
      ['not json', Buffer.from('//# not a map')],
      ['array', Buffer.from('[1,2]')],
      ['v2', Buffer.from('{"version":2,"sources":[],"mappings":""}')],
      ['no mappings', Buffer.from('{"version":3,"sources":[]}')],
      ['no sources', Buffer.from('{"version":3,"mappings":"AAAA"}')],
    ];
    for (const [label, data] of invalid) {
      const res = await uploadMap(t, token, { release: 'r', fileName: 'app.min.js', data });
      expect(res.statusCode, label).toBe(400);
      expect(res.json(), label).toMatchObject({ error: 'monitor.source_map_invalid', details: [{ field: 'file' }] });
    }
    const json = await call(t.app, 'POST', MAPS_URL, { token, body: { release: 'r', fileName: 'a.js' } });
    expect(json.statusCode).toBe(415);
    expect(await rowCount(t, errorSourceMaps)).toBe(before);
  });

  it('needs monitor:error:list to list and monitor:error:manage to upload or delete', async () => {
    const reader = await createUserWithPermissions(t, ['monitor:error:list']);
    const nobody = await createUserWithPermissions(t, []);
    const up = await uploadMap(t, t.demoAdminToken, { release: 'perm@1', fileName: 'app.min.js', data: map });
    const id = up.json().data.id;
    const before = await rowCount(t, errorSourceMaps);

    expect((await call(t.app, 'GET', MAPS_URL, { token: reader.token })).statusCode).toBe(200);
    expectError(await call(t.app, 'GET', MAPS_URL, { token: nobody.token }), 403, 'auth.permission_denied');
    expectError(
      await uploadMap(t, reader.token, { release: 'perm@2', fileName: 'app.min.js', data: map }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'DELETE', `${MAPS_URL}/${id}`, { token: reader.token }),
      403,
      'auth.permission_denied',
    );
    expect(await rowCount(t, errorSourceMaps)).toBe(before);
  });

  it('keeps tenants apart: another tenant neither sees nor deletes the map (404)', async () => {
    const up = await uploadMap(t, t.demoAdminToken, { release: 'iso@1', fileName: 'app.min.js', data: map });
    const id = up.json().data.id;
    const theirs = (await call(t.app, 'GET', MAPS_URL, { token: other.adminToken })).json().data;
    expect(theirs.list.map((m: { id: number }) => m.id)).not.toContain(id);
    expectError(
      await call(t.app, 'DELETE', `${MAPS_URL}/${id}`, { token: other.adminToken }),
      404,
      'monitor.source_map_not_found',
    );
    // the same release + file name in the other tenant is its own map, not a replacement
    const mine = await uploadMap(t, other.adminToken, { release: 'iso@1', fileName: 'app.min.js', data: map });
    expect(mine.statusCode).toBe(201);
    const still = (await call(t.app, 'GET', `${MAPS_URL}?release=iso@1`, { token: t.demoAdminToken })).json().data;
    expect(still.list.map((m: { id: number }) => m.id)).toEqual([id]);
  });
});
