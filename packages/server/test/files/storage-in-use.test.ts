import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageConfigs } from '../../src/modules/files/storage/tables.ts';
import { call } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createFilesTestApp, type FilesTestApp, pngBytes, uploadFile } from './files-helpers.ts';

/** A storage configuration that still holds objects cannot be deleted: its files would become unreadable. */
let t: FilesTestApp;
beforeAll(async () => {
  t = await createFilesTestApp();
});
afterAll(async () => t?.close());

describe('storage configuration in use', () => {
  it('refuses to delete a configuration holding files (409) and the files stay readable', async () => {
    const token = t.demoAdminToken;
    const first = await call(t.app, 'POST', '/api/storage-configs', {
      token,
      body: { name: 'disk A', kind: 'local', isDefault: true },
    });
    expect(first.statusCode, first.body).toBe(201);
    const upload = await uploadFile(t, token, { name: 'a.png', data: pngBytes() });
    expect(upload.statusCode, upload.body).toBe(201);

    const second = await call(t.app, 'POST', '/api/storage-configs', {
      token,
      body: { name: 'disk B', kind: 'local' },
    });
    const secondId = second.json().data.id;
    expect((await call(t.app, 'POST', `/api/storage-configs/${secondId}/default`, { token })).statusCode).toBe(200);

    const before = await rowCount(t, storageConfigs);
    const refused = await call(t.app, 'DELETE', `/api/storage-configs/${first.json().data.id}`, { token });
    expectError(refused, 409, 'files.storage_config_in_use');
    expect(await rowCount(t, storageConfigs)).toBe(before);
    // the file stored there is still readable
    const content = await call(t.app, 'GET', `/api/files/${upload.json().data.id}/content`, { token });
    expect(content.statusCode).toBe(200);
  });
});
