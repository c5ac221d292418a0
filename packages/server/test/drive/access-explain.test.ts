import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveNodes } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { DRIVE_USER, type DriveUser, department, driveUser, file, folder, space } from './drive-fixtures.ts';
import { grant } from './permissions-helpers.ts';

/**
 * GET /api/drive/nodes/{id}/access: why a subject has the role it has on a node — every source,
 * whether it applies and why not, and the answer in one line.
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
let owner: DriveUser;
let seller: DriveUser;
let anyone: DriveUser;
let lapsed: DriveUser;
let viewOnly: DriveUser;
let nobody: DriveUser;
let sp: SpaceRow;
let sales: { id: number };
let projects: NodeRow;
let secret: NodeRow;
let report: NodeRow;

const user = (opts: { departmentId?: number; permissions?: string[] } = {}) =>
  driveUser(t, { tenantId: a.tenantId, tenantCode: a.code, ...opts });
const explain = (token: string, id: number, query = '') =>
  call(t.app, 'GET', `/api/drive/nodes/${id}/access${query}`, { token });

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  owner = await user();
  const dept = await department(t, a.tenantId, { name: 'Sales' });
  sales = dept;
  seller = await user({ departmentId: dept.id });
  anyone = await user();
  lapsed = await user();
  viewOnly = await user({ permissions: ['drive:node:view'] });
  nobody = await user({ permissions: [] });
  sp = await space(t, a.tenantId, {
    type: 'team',
    ownerUserId: owner.userId,
    defaultMemberRole: 'viewer',
    name: 'Team',
  });
  projects = await folder(t, a.tenantId, sp.id, null, 'Projects');
  secret = await folder(t, a.tenantId, sp.id, projects, 'Secret');
  report = await file(t, a.tenantId, sp.id, secret, 'report.txt');
  await grant(t, a.tenantId, projects, { type: 'department', id: dept.id }, 'editor');
  await grant(t, a.tenantId, projects, { type: 'user', id: lapsed.userId }, 'manager', new Date(Date.now() - 1000));
  const res = await call(t.app, 'PUT', `/api/drive/nodes/${secret.id}/inherit`, {
    token: owner.token,
    body: { inherit: false, copyInherited: false },
  });
  expect(res.statusCode, res.body).toBe(200);
});
afterAll(async () => t?.close());

describe('GET /api/drive/nodes/{id}/access', () => {
  it('explains yourself: the grant to your department on the folder above, and the space role beside it', async () => {
    const res = await explain(seller.token, projects.id);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      subject: { type: 'user', id: seller.userId, name: seller.username },
      role: 'editor',
      summary: 'editor — from a grant to department Sales on folder Projects',
      aclOpen: true,
      breakAt: null,
      chain: [{ id: projects.id, name: 'Projects', type: 'folder' }],
    });
    expect(data.sources).toEqual([
      {
        kind: 'signedIn',
        role: 'viewer',
        applies: true,
        reason: 'every signed-in user of the tenant',
        description: "the space's default role for every signed-in user",
      },
      {
        kind: 'grant',
        role: 'editor',
        subject: { type: 'department', id: sales.id, name: 'Sales' },
        nodeId: projects.id,
        nodeName: 'Projects',
        expiresAt: null,
        applies: true,
        description: 'a grant to department Sales on folder Projects',
      },
    ]);
    // the same with your own id given
    const same = await explain(seller.token, projects.id, `?subjectType=user&subjectId=${seller.userId}`);
    expect(same.json().data).toEqual(data);
  });

  it('shows where inheritance is broken and what it cut, to a manager asking about others', async () => {
    const res = await explain(owner.token, report.id, `?subjectType=user&subjectId=${anyone.userId}`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      role: null,
      aclOpen: false,
      breakAt: { id: secret.id, name: 'Secret', type: 'folder' },
      chain: [
        { id: secret.id, name: 'Secret' },
        { id: report.id, name: 'report.txt', type: 'file' },
      ],
      summary: 'no access — inheritance is broken at folder Secret, so the space role does not reach it; no grant',
    });
    expect(data.sources).toMatchObject([{ kind: 'signedIn', role: 'viewer', applies: false }]);
    // the department's grant on Projects does not reach below the break either
    const dept = await explain(owner.token, report.id, `?subjectType=department&subjectId=${sales.id}`);
    expect(dept.json().data).toMatchObject({ subject: { type: 'department', name: 'Sales' }, role: null });
    // the owner about themselves
    const me = await explain(owner.token, report.id);
    expect(me.json().data).toMatchObject({ role: 'manager', summary: 'manager — from owner of the space' });
  });

  it('says an expired grant is expired', async () => {
    const res = await explain(owner.token, projects.id, `?subjectType=user&subjectId=${lapsed.userId}`);
    const data = res.json().data;
    expect(data.role).toBe('viewer');
    expect(data.sources).toContainEqual(
      expect.objectContaining({ kind: 'grant', role: 'manager', applies: false, reason: 'expired' }),
    );
    const below = await explain(owner.token, report.id, `?subjectType=user&subjectId=${lapsed.userId}`);
    expect(below.json().data.summary).toBe(
      'no access — inheritance is broken at folder Secret, so the space role does not reach it; no grant',
    );
    // under the broken folder as it is now (the row read before the break is stale)
    const now = (await rowById(t, driveNodes, secret.id)) as NodeRow;
    const f = await folder(t, a.tenantId, sp.id, now, 'Old');
    await grant(t, a.tenantId, f, { type: 'user', id: anyone.userId }, 'editor', new Date(Date.now() - 1000));
    const gone = await explain(owner.token, f.id, `?subjectType=user&subjectId=${anyone.userId}`);
    expect(gone.json().data.summary).toBe(
      'no access — inheritance is broken at folder Secret, so the space role does not reach it; no live grant (1 expired)',
    );
  });

  it('refuses asking about others without the manager role (403), and a node you cannot see (404)', async () => {
    const res = await explain(seller.token, projects.id, `?subjectType=user&subjectId=${anyone.userId}`);
    expectError(res, 403, 'drive.role_too_low');
    expectError(
      await explain(seller.token, projects.id, `?subjectType=department&subjectId=${sales.id}`),
      403,
      'drive.role_too_low',
    );
    expectError(await explain(seller.token, report.id), 404, 'drive.node_not_found');
  });

  it('refuses bad input naming the field', async () => {
    for (const [query, field, key] of [
      ['?subjectType=user', 'subjectId', 'request.validation_failed'],
      [`?subjectId=${anyone.userId}`, 'subjectType', 'request.validation_failed'],
      ['?subjectType=robot&subjectId=1', 'subjectType', 'request.validation_failed'],
      ['?subjectType=user&subjectId=abc', 'subjectId', 'request.validation_failed'],
      ['?subjectType=user&subjectId=0', 'subjectId', 'request.validation_failed'],
      ['?subjectType=user&subjectId=2000000000', 'subjectId', 'drive.subject_not_found'],
      [`?subjectType=user&subjectId=${other.adminUserId}`, 'subjectId', 'drive.subject_not_found'],
      ['?subjectType=group&subjectId=2000000000', 'subjectId', 'drive.subject_not_found'],
    ] as [string, string, string][]) {
      expectError(await explain(owner.token, projects.id, query), 400, key, field);
    }
  });

  it('needs drive:node:view; another tenant gets 404', async () => {
    expectError(await explain(nobody.token, projects.id), 403, 'auth.permission_denied');
    await grant(t, a.tenantId, projects, { type: 'user', id: viewOnly.userId }, 'manager');
    expect((await explain(viewOnly.token, projects.id)).json().data.role).toBe('manager');
    expectError(await explain(other.adminToken, projects.id), 404, 'drive.node_not_found');
    const osp = await space(t, other.tenantId, { type: 'team', ownerUserId: other.adminUserId });
    const theirs = await folder(t, other.tenantId, osp.id, null, 'Theirs');
    expectError(await explain(owner.token, theirs.id), 404, 'drive.node_not_found');
    expect(DRIVE_USER).toContain('drive:node:view');
  });
});
