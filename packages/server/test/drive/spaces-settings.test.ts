import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsValues } from '../../src/platform/settings/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { driveUser } from './drive-fixtures.ts';

/**
 * The drive's settings module (spec §2.2) through the generic settings routes: its menu
 * permissions, the blocked extensions' format, the watermark switch projected to every signed-in
 * user, and the alert thresholds that only the platform sets.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const getDrive = (token: string) => call(t.app, 'GET', '/api/settings/drive', { token });
const putDrive = (token: string, body: object) => call(t.app, 'PUT', '/api/settings/drive', { token, body });

describe('settings module drive', () => {
  it('is read with drive:setting:view and written with drive:setting:edit', async () => {
    const nobody = await driveUser(t, { permissions: ['drive:space:view'] });
    const reader = await driveUser(t, { permissions: ['drive:setting:view'] });
    const writer = await driveUser(t, { permissions: ['drive:setting:view', 'drive:setting:edit'] });

    expectError(await getDrive(nobody.token), 403, 'auth.permission_denied');
    const read = await getDrive(reader.token);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data.values).toMatchObject({
      personalQuotaGb: 10,
      departmentQuotaGb: 100,
      teamQuotaGb: 50,
      departmentSpaceAutoCreate: false,
      maxVersions: 50,
      previewWatermarkEnabled: false,
    });

    const before = await rowCount(t, settingsValues);
    expectError(await putDrive(reader.token, { teamQuotaGb: 7 }), 403, 'auth.permission_denied');
    expect(await rowCount(t, settingsValues)).toBe(before);
    const written = await putDrive(writer.token, { teamQuotaGb: 7 });
    expect(written.statusCode, written.body).toBe(200);
    expect((await getDrive(reader.token)).json().data.values.teamQuotaGb).toBe(7);
    await putDrive(writer.token, { teamQuotaGb: 50 });
  });

  it('takes blocked extensions with or without a dot, in any case, compound ones too; refuses a path', async () => {
    const ok = await putDrive(t.demoAdminToken, { blockedExtensions: ['exe', '.EXE', 'tar.gz'] });
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await getDrive(t.demoAdminToken)).json().data.values.blockedExtensions).toEqual(['exe', '.EXE', 'tar.gz']);

    for (const bad of [['a/b'], ['..'], [''], ['exe', 'x'.repeat(40)], 'exe']) {
      expectError(
        await putDrive(t.demoAdminToken, { blockedExtensions: bad }),
        400,
        'request.validation_failed',
        'blockedExtensions',
      );
    }
    expect((await getDrive(t.demoAdminToken)).json().data.values.blockedExtensions).toEqual(['exe', '.EXE', 'tar.gz']);
  });

  it('projects previewWatermarkEnabled to any signed-in user through GET /api/settings/me', async () => {
    const anyone = await driveUser(t, { permissions: [] });
    const mine = async () => {
      const res = await call(t.app, 'GET', '/api/settings/me', { token: anyone.token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.drive;
    };
    expect(await mine()).toEqual({ previewWatermarkEnabled: false });
    expect((await putDrive(t.demoAdminToken, { previewWatermarkEnabled: true })).statusCode).toBe(200);
    // only the watermark: quotas and the rest stay the administrators'
    expect(await mine()).toEqual({ previewWatermarkEnabled: true });
  });

  it('leaves the alert thresholds to the platform: a tenant administrator is refused naming the field', async () => {
    const before = await rowCount(t, settingsValues);
    for (const field of ['alertWindowMinutes', 'alertBulkDownloadCount', 'alertShareFailureCount']) {
      expectError(await putDrive(t.demoAdminToken, { [field]: 30 }), 400, 'request.validation_failed', field);
    }
    // one platform-only field refuses the whole update
    expectError(
      await putDrive(t.demoAdminToken, { teamQuotaGb: 9, alertWindowMinutes: 30 }),
      400,
      'request.validation_failed',
      'alertWindowMinutes',
    );
    expect(await rowCount(t, settingsValues)).toBe(before);
    expect((await getDrive(t.demoAdminToken)).json().data.values).toMatchObject({
      teamQuotaGb: 50,
      alertWindowMinutes: 0,
    });
    const fields = (await getDrive(t.demoAdminToken)).json().data.fields as { name: string; platformOnly: boolean }[];
    expect(fields.filter((f) => f.platformOnly).map((f) => f.name)).toEqual([
      'alertWindowMinutes',
      'alertBulkDownloadCount',
      'alertShareFailureCount',
    ]);

    // the platform sets them, and every tenant reads the platform's value
    const platform = await putDrive(t.adminToken, { alertWindowMinutes: 30 });
    expect(platform.statusCode, platform.body).toBe(200);
    expect((await getDrive(t.demoAdminToken)).json().data.values.alertWindowMinutes).toBe(30);
    expectError(
      await putDrive(t.adminToken, { alertWindowMinutes: 10081 }),
      400,
      'request.validation_failed',
      'alertWindowMinutes',
    );
  });
});
