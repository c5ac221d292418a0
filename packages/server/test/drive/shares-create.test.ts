import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveShareLinks, driveSpaces } from '../../src/modules/drive/tables.ts';
import { sha256 } from '../../src/platform/crypto/digest.ts';
import { verifyPassword } from '../../src/platform/crypto/passwords.ts';
import { secretContext } from '../../src/platform/crypto/secrets.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { activitiesOfNode, grant } from './permissions-helpers.ts';
import { createLink, inDays, linkRow, setDriveSettings } from './shares-helpers.ts';

/**
 * Creating share links (issue 15): POST /api/drive/share-links — the 'share' role (editor), the
 * tenant settings and the space switch, the token kept hashed and encrypted, the answer's URL.
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
const u: Record<'owner' | 'editor' | 'viewer' | 'downloader' | 'stranger' | 'readOnly', DriveUser> = {} as never;
let sp: SpaceRow;
let top: NodeRow;
let doc: NodeRow;
let otherDoc: NodeRow;

const user = (x: TenantFixture, permissions?: string[]) =>
  driveUser(t, { tenantId: x.tenantId, tenantCode: x.code, ...(permissions ? { permissions } : {}) });

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  u.owner = await user(a);
  u.editor = await user(a);
  u.viewer = await user(a);
  u.downloader = await user(a);
  u.stranger = await user(a);
  u.readOnly = await user(a, ['drive:node:view']);
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId, name: 'Sales' });
  top = await folder(t, a.tenantId, sp.id, null, 'Offers');
  doc = await file(t, a.tenantId, sp.id, top, 'offer.pdf');
  await grant(t, a.tenantId, top, { type: 'user', id: u.editor.userId }, 'editor');
  await grant(t, a.tenantId, top, { type: 'user', id: u.viewer.userId }, 'viewer');
  await grant(t, a.tenantId, top, { type: 'user', id: u.downloader.userId }, 'downloader');
  await grant(t, a.tenantId, top, { type: 'user', id: u.readOnly.userId }, 'editor');
  const osp = await space(t, other.tenantId, { type: 'team', ownerUserId: other.adminUserId });
  otherDoc = await file(t, other.tenantId, osp.id, null, 'theirs.txt');
});
afterAll(async () => t?.close());

describe('POST /api/drive/share-links', () => {
  it('creates a link for an editor: token and URL once in the answer, stored hashed and encrypted', async () => {
    const expiresAt = inDays(10);
    const res = await createLink(t, u.editor.token, {
      nodeId: doc.id,
      title: 'For the customer',
      password: 'correct horse',
      expiresAt,
      maxAccessCount: 5,
      maxDownloadCount: 2,
      allowedIps: ['10.0.0.0/8', '2001:db8::/32', '::1', '192.168.1.7'],
      capabilities: ['preview', 'download', 'download'],
      watermark: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    const v = res.json().data;
    expect(v).toMatchObject({
      node: { id: doc.id, name: 'offer.pdf' },
      spaceId: sp.id,
      title: 'For the customer',
      hasPassword: true,
      capabilities: ['preview', 'download'],
      expiresAt: new Date(expiresAt).toISOString(),
      maxAccessCount: 5,
      accessCount: 0,
      maxDownloadCount: 2,
      downloadCount: 0,
      allowedIps: ['10.0.0.0/8', '2001:db8::/32', '::1', '192.168.1.7'],
      watermark: true,
      status: 'active',
      state: 'active',
      createdBy: { id: u.editor.userId },
    });
    expect(v.token.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits in base64url
    // without PUBLIC_BASE_URL the link is absolute all the same: the development address http://HOST:PORT
    expect(v.url).toBe(`http://127.0.0.1:3000/s/${v.token}`);
    expect(JSON.stringify(v)).not.toMatch(/passwordHash|password_hash|\$argon|\$scrypt/);

    const row = await linkRow(t, v.id);
    expect(row?.tokenHash).toBe(sha256(v.token));
    expect(row?.tokenEncrypted).not.toContain(v.token);
    expect(
      t.app.ctx.secrets.decrypt(row?.tokenEncrypted ?? '', secretContext('drive_share_links', 'token_encrypted', v.id)),
    ).toBe(v.token);
    expect(row?.passwordHash).not.toBe('correct horse');
    expect(await verifyPassword(row?.passwordHash ?? '', 'correct horse')).toBe(true);
    expect(row).toMatchObject({ kind: 'share', sessionVersion: 1, tenantId: a.tenantId, createdBy: u.editor.userId });
    const acts = (await activitiesOfNode(t, doc.id)).filter((x) => x.action === 'share.create');
    expect(acts.at(-1)?.detail).toMatchObject({ linkId: v.id });
  });

  it('defaults to preview only, no password, no limits; two links get different tokens', async () => {
    const one = (await createLink(t, u.owner.token, { nodeId: top.id })).json().data;
    const two = (await createLink(t, u.owner.token, { nodeId: top.id })).json().data;
    expect(one).toMatchObject({ capabilities: ['preview'], hasPassword: false, maxAccessCount: null, allowedIps: [] });
    expect(one.token).not.toBe(two.token);
  });

  it('refuses bad input naming the field, writing nothing', async () => {
    const before = await rowCount(t, driveShareLinks);
    const cases: [object, string][] = [
      [{ title: 'x'.repeat(101) }, 'title'],
      [{ password: 'short' }, 'password'],
      [{ password: 'x'.repeat(129) }, 'password'],
      [{ maxAccessCount: 0 }, 'maxAccessCount'],
      [{ maxAccessCount: 1_000_001 }, 'maxAccessCount'],
      [{ maxDownloadCount: -1 }, 'maxDownloadCount'],
      [{ capabilities: ['preview', 'edit'] }, 'capabilities.1'],
      [{ capabilities: [] }, 'capabilities'],
      [{ allowedIps: ['10.0.0.0/33'] }, 'allowedIps.0'],
      [{ allowedIps: ['::1', 'example.com'] }, 'allowedIps.1'],
      [{ allowedIps: ['1.2.3.4/8/1'] }, 'allowedIps.0'],
      [{ allowedIps: ['2001:db8::/129'] }, 'allowedIps.0'],
      [{ allowedIps: Array.from({ length: 51 }, () => '::1') }, 'allowedIps'],
      [{ expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ expiresAt: inDays(-1) }, 'expiresAt'],
    ];
    for (const [body, field] of cases) {
      const res = await createLink(t, u.editor.token, { nodeId: doc.id, ...body });
      expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(400);
      expectError(res, 400, 'request.validation_failed', field);
    }
    expectError(await createLink(t, u.editor.token, {}), 400, 'request.validation_failed', 'nodeId');
    expect(await rowCount(t, driveShareLinks)).toBe(before);
  });

  it("makes 'share' links by default; kind 'collect' needs a folder (collect-links.test.ts)", async () => {
    const res = await createLink(t, u.editor.token, { nodeId: doc.id });
    expect(res.statusCode, res.body).toBe(201);
    expect((await linkRow(t, res.json().data.id))?.kind).toBe('share');
    const before = await rowCount(t, driveShareLinks);
    expectError(
      await createLink(t, u.editor.token, { nodeId: doc.id, kind: 'collect' }),
      400,
      'drive.not_a_folder',
      'nodeId',
    );
    expect(await rowCount(t, driveShareLinks)).toBe(before);
  });

  it('needs drive:node:edit', async () => {
    const before = await rowCount(t, driveShareLinks);
    expectError(await createLink(t, u.readOnly.token, { nodeId: doc.id }), 403, 'auth.permission_denied');
    expect(await rowCount(t, driveShareLinks)).toBe(before);
  });

  it('needs the editor role: viewer and downloader 403, no role 404', async () => {
    const before = await rowCount(t, driveShareLinks);
    expectError(await createLink(t, u.viewer.token, { nodeId: doc.id }), 403, 'drive.role_too_low');
    expectError(await createLink(t, u.downloader.token, { nodeId: doc.id }), 403, 'drive.role_too_low');
    expectError(await createLink(t, u.stranger.token, { nodeId: doc.id }), 404, 'drive.node_not_found');
    expect(await rowCount(t, driveShareLinks)).toBe(before);
  });

  it("does not share another tenant's node (404, nothing written)", async () => {
    const before = await rowCount(t, driveShareLinks);
    expectError(await createLink(t, a.adminToken, { nodeId: otherDoc.id }), 404, 'drive.node_not_found');
    expect(await rowCount(t, driveShareLinks)).toBe(before);
  });
});

describe('share-link settings', () => {
  let s: TenantFixture;
  let owner: DriveUser;
  let ssp: SpaceRow;
  let sdoc: NodeRow;
  beforeAll(async () => {
    s = await createTenant(t);
    owner = await user(s);
    ssp = await space(t, s.tenantId, { type: 'team', ownerUserId: owner.userId });
    sdoc = await file(t, s.tenantId, ssp.id, null, 'plan.txt');
  });

  it('externalShareEnabled false refuses every link (403 drive.external_share_disabled)', async () => {
    await setDriveSettings(t, s.adminToken, { externalShareEnabled: false });
    const before = await rowCount(t, driveShareLinks);
    expectError(await createLink(t, owner.token, { nodeId: sdoc.id }), 403, 'drive.external_share_disabled');
    expect(await rowCount(t, driveShareLinks)).toBe(before);
    await setDriveSettings(t, s.adminToken, { externalShareEnabled: true });
    expect((await createLink(t, owner.token, { nodeId: sdoc.id })).statusCode).toBe(201);
  });

  it("the space's external_share_enabled switch refuses links in that space only", async () => {
    const open = await space(t, s.tenantId, { type: 'team', ownerUserId: owner.userId });
    const openDoc = await file(t, s.tenantId, open.id, null, 'open.txt');
    await t.database.db.update(driveSpaces).set({ externalShareEnabled: false }).where(eq(driveSpaces.id, ssp.id));
    expectError(await createLink(t, owner.token, { nodeId: sdoc.id }), 403, 'drive.external_share_disabled');
    expect((await createLink(t, owner.token, { nodeId: openDoc.id })).statusCode).toBe(201);
    await t.database.db.update(driveSpaces).set({ externalShareEnabled: true }).where(eq(driveSpaces.id, ssp.id));
  });

  it('externalShareMaxDays: expiresAt required and within the maximum; 0 lifts both', async () => {
    await setDriveSettings(t, s.adminToken, { externalShareMaxDays: 3 });
    const before = await rowCount(t, driveShareLinks);
    const none = await createLink(t, owner.token, { nodeId: sdoc.id, expiresAt: undefined });
    expectError(none, 400, 'request.validation_failed', 'expiresAt');
    // the answer names the field and the setting that requires it, and how to lift it
    expect(none.json().details).toEqual([
      {
        field: 'expiresAt',
        message:
          'is required: the drive setting externalShareMaxDays (3) limits share links to 3 days; ' +
          'an administrator sets it to 0 to allow links without expiry',
      },
    ]);
    const tooLate = await createLink(t, owner.token, { nodeId: sdoc.id, expiresAt: inDays(4) });
    expectError(tooLate, 400, 'request.validation_failed', 'expiresAt');
    expect(tooLate.json().details).toEqual([
      {
        field: 'expiresAt',
        message: 'must be within 3 days from now: the drive setting externalShareMaxDays (3) limits share links',
      },
    ]);
    expect(await rowCount(t, driveShareLinks)).toBe(before);
    expect((await createLink(t, owner.token, { nodeId: sdoc.id, expiresAt: inDays(2.9) })).statusCode).toBe(201);
    await setDriveSettings(t, s.adminToken, { externalShareMaxDays: 0 });
    const forever = await createLink(t, owner.token, { nodeId: sdoc.id, expiresAt: undefined });
    expect(forever.statusCode, forever.body).toBe(201);
    expect(forever.json().data.expiresAt).toBeNull();
    expect((await createLink(t, owner.token, { nodeId: sdoc.id, expiresAt: inDays(400) })).statusCode).toBe(201);
    await setDriveSettings(t, s.adminToken, { externalShareMaxDays: 30 });
  });

  it('the API description says when expiresAt is required: it depends on externalShareMaxDays', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
    type Body = { required?: string[]; properties: Record<string, { description: string }> };
    const bodyOf = (op: { requestBody: { content: Record<string, { schema: Body }> } }) =>
      op.requestBody.content['application/json']?.schema as Body;
    const create = bodyOf(doc.paths['/api/drive/share-links'].post);
    expect(create.required).not.toContain('expiresAt');
    expect(create.properties.expiresAt?.description).toContain(
      "Required while the tenant's drive setting externalShareMaxDays is above 0 (default 30;",
    );
    expect(create.properties.expiresAt?.description).toContain('When the setting is 0 it is optional');
    const update = bodyOf(doc.paths['/api/drive/share-links/{id}'].put);
    expect(update.properties.expiresAt?.description).toContain(
      'null removes the expiry, which is refused while the drive setting externalShareMaxDays is above 0 (default 30;',
    );
  });

  it('externalShareRequirePassword: a password is required', async () => {
    await setDriveSettings(t, s.adminToken, { externalShareRequirePassword: true });
    const before = await rowCount(t, driveShareLinks);
    expectError(await createLink(t, owner.token, { nodeId: sdoc.id }), 400, 'request.validation_failed', 'password');
    expect(await rowCount(t, driveShareLinks)).toBe(before);
    const ok = await createLink(t, owner.token, { nodeId: sdoc.id, password: 'long enough' });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().data.hasPassword).toBe(true);
    await setDriveSettings(t, s.adminToken, { externalShareRequirePassword: false });
  });
});

describe('system task drive.activityPartitions', () => {
  it('creates the monthly partitions of drive_share_access_logs too', async () => {
    const task = t.app.ctx.jobs.systemTask('drive.activityPartitions');
    const run = (await task?.handler({}, { trigger: 'manual', cronJobId: 0, runId: 0, log: t.app.ctx.log })) as {
      partitions: string[];
    };
    const now = new Date();
    const month = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(run.partitions).toContain(`drive_activities_${month}`);
    expect(run.partitions).toContain(`drive_share_access_logs_${month}`);
    const made = await t.app.drive.core.activities.ensurePartitions(
      new Date('2042-06-15T00:00:00Z'),
      'drive_share_access_logs',
    );
    expect(made.partitions).toEqual([
      'drive_share_access_logs_204206',
      'drive_share_access_logs_204207',
      'drive_share_access_logs_204208',
    ]);
    const r = (await t.database.db.execute(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'drive_share_access_logs'::regclass and c.relname like '%_2042%' order by 1` as never,
    )) as unknown as { rows: { name: string }[] };
    expect(r.rows.map((x) => x.name)).toEqual(made.partitions);
  });
});
