import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inAppTemplates } from '../../src/modules/messaging/inapp/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, fieldsOf, rowById, rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { messageById } from './inapp-helpers.ts';

/** In-app templates: CRUD per tenant, placeholders declared, codes unique per tenant. */
let t: TestApp;
let other: TenantFixture;
let otherTpl: number;
let editor: { token: string };
let nobody: { token: string };
const url = '/api/in-app-templates';

beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody } = await twoTenants(t));
  editor = await createUserWithPermissions(t, [
    'system:in-app-template:list',
    'system:in-app-template:create',
    'system:in-app-template:update',
    'system:in-app-template:delete',
  ]);
  const res = await call(t.app, 'POST', url, {
    token: other.adminToken,
    body: { code: 'shared', title: 'Other', content: 'Other' },
  });
  otherTpl = res.json().data.id;
});
afterAll(async () => t?.close());

async function create(body: object, token = editor.token) {
  return call(t.app, 'POST', url, { token, body: { code: 'c', title: 'T', content: 'C', ...body } });
}

describe('in-app templates', () => {
  it('creates, reads, lists with filters, updates and deletes a template', async () => {
    const res = await create({
      code: 'task.assigned',
      title: 'Task {{task}}',
      content: 'Hi {{user.name}}, {{task}} is yours',
      variables: ['task', 'user'],
      remark: 'r',
    });
    expect(res.statusCode, res.body).toBe(201);
    const tpl = res.json().data;
    expect(tpl).toMatchObject({
      code: 'task.assigned',
      type: 'notification',
      status: 'active',
      variables: ['task', 'user'],
      remark: 'r',
    });
    expect((await call(t.app, 'GET', `${url}/${tpl.id}`, { token: editor.token })).json().data.title).toBe(
      'Task {{task}}',
    );
    await create({ code: 'sys.notice', title: 'Notice', type: 'system', status: 'disabled' });

    const list = async (q: string) =>
      (await call(t.app, 'GET', `${url}?${q}`, { token: editor.token }))
        .json()
        .data.list.map((r: { code: string }) => r.code);
    expect(await list('')).toEqual(['sys.notice', 'task.assigned']);
    expect(await list('keyword=ASSIGN')).toEqual(['task.assigned']);
    expect(await list('type=system')).toEqual(['sys.notice']);
    expect(await list('status=active')).toEqual(['task.assigned']);

    const upd = await call(t.app, 'PUT', `${url}/${tpl.id}`, {
      token: editor.token,
      body: { title: 'Task {{task}} for {{user.name}}', status: 'disabled' },
    });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json().data).toMatchObject({
      title: 'Task {{task}} for {{user.name}}',
      status: 'disabled',
      content: tpl.content,
    });

    expect((await call(t.app, 'DELETE', `${url}/${tpl.id}`, { token: editor.token })).json().data).toEqual({
      ok: true,
    });
    expect(await rowById(t, inAppTemplates, tpl.id)).toBeUndefined();
    expectError(
      await call(t.app, 'GET', `${url}/${tpl.id}`, { token: editor.token }),
      404,
      'messaging.in_app_template_not_found',
    );
  });

  it('refuses placeholders that are not declared variables, naming the field, and writes nothing', async () => {
    const before = await rowCount(t, inAppTemplates);
    const both = await create({
      code: 'undeclared',
      title: 'Hi {{name}}',
      content: 'From {{sender}} and {{name}}',
      variables: ['other'],
    });
    expectError(both, 400, 'request.validation_failed');
    expect(fieldsOf(both)).toEqual(['title', 'content']);
    expect(both.json().details[1].message).toContain('sender');
    expect(await rowCount(t, inAppTemplates)).toBe(before);

    const tpl = (await create({ code: 'declared', title: 'Hi {{name}}', variables: ['name'] })).json().data;
    // removing a variable still in use names `variables`; new text with an undeclared one names the text
    expect(
      fieldsOf(await call(t.app, 'PUT', `${url}/${tpl.id}`, { token: editor.token, body: { variables: [] } })),
    ).toEqual(['variables']);
    expect(
      fieldsOf(await call(t.app, 'PUT', `${url}/${tpl.id}`, { token: editor.token, body: { content: '{{x}}' } })),
    ).toEqual(['content']);
    expect((await rowById(t, inAppTemplates, tpl.id))?.variables).toEqual(['name']);
  });

  it('refuses malformed fields naming each one', async () => {
    const res = await call(t.app, 'POST', url, {
      token: editor.token,
      body: {
        code: '1 bad',
        title: '',
        content: 'x',
        type: 'spam',
        variables: ['ok', 'not ok'],
        status: 'on',
        extra: 1,
      },
    });
    expectError(res, 400, 'request.validation_failed');
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['code', 'title', 'type', 'variables.1', 'status']));
    expectError(
      await call(t.app, 'POST', url, { token: editor.token, body: { code: 'x', title: 'x' } }),
      400,
      'request.validation_failed',
      'content',
    );
  });

  it('keeps codes unique per tenant: the same code may exist in another tenant and at platform level', async () => {
    expect((await create({ code: 'shared' })).statusCode).toBe(201);
    const dup = await create({ code: 'shared' });
    expectError(dup, 409, 'messaging.in_app_template_exists', 'code');
    const platform = await create({ code: 'shared' }, t.adminToken);
    expect(platform.statusCode).toBe(201);
    expect((await rowById(t, inAppTemplates, platform.json().data.id))?.tenantId).toBeNull();
    expectError(await create({ code: 'shared' }, t.adminToken), 409, 'messaging.in_app_template_exists', 'code');
    // renaming onto a taken code is refused too
    const renamed = (await create({ code: 'free' })).json().data;
    expectError(
      await call(t.app, 'PUT', `${url}/${renamed.id}`, { token: editor.token, body: { code: 'shared' } }),
      409,
      'messaging.in_app_template_exists',
      'code',
    );
  });

  it('needs the template permissions', async () => {
    const tpl = (await create({ code: 'guarded' })).json().data;
    const before = await rowCount(t, inAppTemplates);
    for (const [method, path, body] of [
      ['GET', url, undefined],
      ['GET', `${url}/${tpl.id}`, undefined],
      ['POST', url, { code: 'x', title: 'x', content: 'x' }],
      ['PUT', `${url}/${tpl.id}`, { title: 'changed' }],
      ['DELETE', `${url}/${tpl.id}`, undefined],
    ] as const) {
      expectError(await call(t.app, method, path, { token: nobody.token, body }), 403, 'auth.permission_denied');
    }
    expect(await rowCount(t, inAppTemplates)).toBe(before);
    expect((await rowById(t, inAppTemplates, tpl.id))?.title).toBe('T');
  });

  it('answers 404 for another tenant’s template and changes nothing', async () => {
    const before = await rowById(t, inAppTemplates, otherTpl);
    expectError(
      await call(t.app, 'GET', `${url}/${otherTpl}`, { token: editor.token }),
      404,
      'messaging.in_app_template_not_found',
    );
    expectError(
      await call(t.app, 'PUT', `${url}/${otherTpl}`, { token: editor.token, body: { title: 'mine' } }),
      404,
      'messaging.in_app_template_not_found',
    );
    expectError(
      await call(t.app, 'DELETE', `${url}/${otherTpl}`, { token: editor.token }),
      404,
      'messaging.in_app_template_not_found',
    );
    expect(await rowById(t, inAppTemplates, otherTpl)).toEqual(before);
    const list = await call(t.app, 'GET', `${url}?pageSize=200`, { token: editor.token });
    expect(list.json().data.list.map((r: { id: number }) => r.id)).not.toContain(otherTpl);
  });

  it('deleting a template keeps the messages written from it', async () => {
    const admin = await createUserWithPermissions(t, [
      'system:in-app-message:send',
      'system:in-app-template:create',
      'system:in-app-template:delete',
    ]);
    const tpl = (await create({ code: 'kept', title: 'Kept title', content: 'Kept body' }, admin.token)).json().data;
    const sent = await call(t.app, 'POST', '/api/in-app-messages/send', {
      token: admin.token,
      body: { userIds: [admin.userId], templateId: tpl.id },
    });
    expect(sent.statusCode, sent.body).toBe(201);
    expect((await call(t.app, 'DELETE', `${url}/${tpl.id}`, { token: admin.token })).statusCode).toBe(200);
    expect(await messageById(t, sent.json().data.ids[0])).toMatchObject({
      title: 'Kept title',
      content: 'Kept body',
      templateId: null,
    });
  });
});
