import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notices } from '../../src/modules/system/tables.ts';
import { realtimeEvents } from '../../src/platform/realtime/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { fieldsOf } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';

let t: TestApp;
let other: TenantFixture;
let editor: { token: string };
let nobody: { token: string };

beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody } = await twoTenants(t));
  editor = await createUserWithPermissions(t, ['system:notice:list', 'system:notice:create', 'system:notice:update']);
});
afterAll(async () => t?.close());

const rowOf = async (id: number) => (await t.database.db.select().from(notices).where(eq(notices.id, id)))[0];

async function createNotice(token: string, body: object = {}): Promise<number> {
  const res = await call(t.app, 'POST', '/api/notices', {
    token,
    body: { title: 'Hello', content: '<p>Body</p>', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

describe('notices', () => {
  it('creates a draft, reads, lists with filters, updates and deletes it', async () => {
    const token = t.demoAdminToken;
    const res = await call(t.app, 'POST', '/api/notices', {
      token,
      body: { title: 'Maintenance window', content: '<p>Saturday <strong>02:00</strong></p>', type: 'announcement' },
    });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({
      title: 'Maintenance window',
      type: 'announcement',
      status: 'draft',
      publishedAt: null,
    });
    expect(created.content).toBe('<p>Saturday <strong>02:00</strong></p>');
    expect((await call(t.app, 'GET', `/api/notices/${created.id}`, { token })).json().data.title).toBe(
      'Maintenance window',
    );

    const list = await call(t.app, 'GET', '/api/notices?keyword=maintenance&type=announcement&status=draft', { token });
    expect(list.json().data.list.map((n: { id: number }) => n.id)).toEqual([created.id]);

    const upd = await call(t.app, 'PUT', `/api/notices/${created.id}`, {
      token,
      body: { title: 'Moved', content: '<p>Sunday</p>' },
    });
    expect(upd.json().data).toMatchObject({ title: 'Moved', content: '<p>Sunday</p>', type: 'announcement' });
    expect((await call(t.app, 'DELETE', `/api/notices/${created.id}`, { token })).statusCode).toBe(200);
    expect(await rowOf(created.id)).toBeUndefined();
  });

  it('sanitizes the HTML on save: no script, no event handler, no style/iframe/object, safe links and images', async () => {
    const dirty = [
      '<p onclick="steal()">Hi<script>alert(1)</script></p>',
      '<img src="x" onerror="alert(1)">',
      '<img src="https://cdn.example.com/a.png" onerror="alert(2)" alt="a">',
      '<img src="data:image/png;base64,iVBORw0KGgo=">',
      '<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=">',
      '<a href="javascript:alert(3)">bad</a>',
      '<a href="https://example.com" target="_blank">good</a>',
      '<a href="mailto:ops@example.com">mail</a>',
      '<style>p{color:red}</style><iframe src="https://evil.example"></iframe><object data="x"></object>',
    ].join('');
    const res = await call(t.app, 'POST', '/api/notices', {
      token: t.demoAdminToken,
      body: { title: 'XSS', content: dirty },
    });
    expect(res.statusCode).toBe(201);
    const stored = (await rowOf(res.json().data.id))?.content ?? '';
    expect(stored).toBe(res.json().data.content);
    for (const bad of [
      '<script',
      'alert(1)',
      'onerror',
      'onclick',
      'javascript:',
      '<style',
      '<iframe',
      '<object',
      'svg+xml',
      'src="x"',
    ]) {
      expect(stored).not.toContain(bad);
    }
    expect(stored).toContain('<p>Hi</p>');
    expect(stored).toContain('src="https://cdn.example.com/a.png"');
    expect(stored).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(stored).toMatch(
      /<a[^>]*href="https:\/\/example.com"[^>]*rel="noopener noreferrer"[^>]*>good<\/a>|<a[^>]*rel="noopener noreferrer"[^>]*href="https:\/\/example.com"[^>]*>good<\/a>/,
    );
    expect(stored).toContain('href="mailto:ops@example.com"');

    const upd = await call(t.app, 'PUT', `/api/notices/${res.json().data.id}`, {
      token: t.demoAdminToken,
      body: { content: '<p>ok</p><script>alert(1)</script>' },
    });
    expect(upd.json().data.content).toBe('<p>ok</p>');
  });

  it('rejects bad input with 400 naming the fields and writes nothing', async () => {
    const before = (await t.database.db.select().from(notices)).length;
    const res = await call(t.app, 'POST', '/api/notices', {
      token: t.demoAdminToken,
      body: { title: 'x'.repeat(201), content: '', type: 'memo' },
    });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['title', 'content', 'type']));
    const onlyScript = await call(t.app, 'POST', '/api/notices', {
      token: t.demoAdminToken,
      body: { title: 'T', content: '<script>x()</script>' },
    });
    expect(onlyScript.statusCode).toBe(400);
    expect(fieldsOf(onlyScript)).toEqual(['content']);
    expect((await t.database.db.select().from(notices)).length).toBe(before);

    const id = await createNotice(t.demoAdminToken, { title: 'Keep me' });
    const upd = await call(t.app, 'PUT', `/api/notices/${id}`, { token: t.demoAdminToken, body: { title: '' } });
    expect(upd.statusCode).toBe(400);
    expect(fieldsOf(upd)).toEqual(['title']);
    expect((await rowOf(id))?.title).toBe('Keep me');
  });

  it('answers 403 without the permission and writes nothing', async () => {
    expect((await call(t.app, 'GET', '/api/notices', { token: nobody.token })).statusCode).toBe(403);
    const denied = await call(t.app, 'POST', '/api/notices', {
      token: nobody.token,
      body: { title: 'No', content: '<p>no</p>' },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toBe('auth.permission_denied');

    const id = await createNotice(editor.token, { title: 'By editor' });
    expect((await rowOf(id))?.createdBy).not.toBeNull();
    for (const url of [`/api/notices/${id}/publish`, `/api/notices/${id}/withdraw`]) {
      const r = await call(t.app, 'POST', url, { token: editor.token });
      expect(r.statusCode).toBe(403);
      expect(r.json().error).toBe('auth.permission_denied');
    }
    expect((await call(t.app, 'DELETE', `/api/notices/${id}`, { token: editor.token })).statusCode).toBe(403);
    expect(
      (await call(t.app, 'DELETE', '/api/notices/batch', { token: editor.token, body: { ids: [id] } })).statusCode,
    ).toBe(403);
    expect(await rowOf(id)).toMatchObject({ title: 'By editor', status: 'draft' });
  });

  it("answers 404 for another tenant's notice on every operation and leaves it unchanged", async () => {
    const id = await createNotice(t.demoAdminToken, { title: 'Demo only' });
    await call(t.app, 'POST', `/api/notices/${id}/publish`, { token: t.demoAdminToken });
    const before = await rowOf(id);
    const attempts = [
      ['GET', `/api/notices/${id}`, undefined],
      ['GET', `/api/notices/${id}/view`, undefined],
      ['PUT', `/api/notices/${id}`, { title: 'Stolen' }],
      ['POST', `/api/notices/${id}/withdraw`, undefined],
      ['POST', `/api/notices/${id}/publish`, undefined],
      ['DELETE', `/api/notices/${id}`, undefined],
      ['DELETE', '/api/notices/batch', { ids: [id] }],
    ] as const;
    for (const [method, url, body] of attempts) {
      const r = await call(t.app, method, url, { token: other.adminToken, body });
      expect(r.statusCode, `${method} ${url}`).toBe(404);
      expect(r.json().error).toBe('system.notice_not_found');
    }
    expect(await rowOf(id)).toEqual(before);
    const published = await call(t.app, 'GET', '/api/notices/published', { token: other.adminToken });
    expect(published.json().data.list.map((n: { id: number }) => n.id)).not.toContain(id);
  });
});

describe('publish and withdraw', () => {
  it('moves draft → published → withdrawn → published; repeats change nothing and push nothing', async () => {
    const token = t.demoAdminToken;
    const id = await createNotice(token, { title: 'State machine' });
    const pushes = async () =>
      (await t.database.db.select().from(realtimeEvents)).filter((e) => (e.payload as { id: number }).id === id).length;

    const withdrawDraft = await call(t.app, 'POST', `/api/notices/${id}/withdraw`, { token });
    expect(withdrawDraft.statusCode).toBe(409);
    expect(withdrawDraft.json().error).toBe('system.notice_not_published');

    const first = await call(t.app, 'POST', `/api/notices/${id}/publish`, { token });
    expect(first.statusCode).toBe(200);
    expect(first.json().data.status).toBe('published');
    const publishedAt = first.json().data.publishedAt;
    expect(publishedAt).toEqual(expect.any(String));
    expect(await pushes()).toBe(1);
    const [event] = (await t.database.db.select().from(realtimeEvents)).filter(
      (e) => (e.payload as { id: number }).id === id,
    );
    expect(event).toMatchObject({ topic: 'notice.published', tenantId: t.demoTenantId, userIds: null });
    expect(event?.payload).toEqual({ id, title: 'State machine', type: 'notice', publishedAt });

    const repeat = await call(t.app, 'POST', `/api/notices/${id}/publish`, { token });
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json().data).toMatchObject({ status: 'published', publishedAt });
    expect(await pushes()).toBe(1);

    const withdrawn = await call(t.app, 'POST', `/api/notices/${id}/withdraw`, { token });
    expect(withdrawn.json().data.status).toBe('withdrawn');
    const again = await call(t.app, 'POST', `/api/notices/${id}/withdraw`, { token });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.status).toBe('withdrawn');

    const republished = await call(t.app, 'POST', `/api/notices/${id}/publish`, { token });
    expect(republished.json().data.status).toBe('published');
    expect(await pushes()).toBe(2);
  });

  it('lets any signed-in user read published notices only, newest first', async () => {
    const token = t.demoAdminToken;
    const draft = await createNotice(token, { title: 'Still a draft' });
    const older = await createNotice(token, { title: 'Older' });
    const newer = await createNotice(token, { title: 'Newer', type: 'announcement' });
    await call(t.app, 'POST', `/api/notices/${older}/publish`, { token });
    await call(t.app, 'POST', `/api/notices/${newer}/publish`, { token });

    const res = await call(t.app, 'GET', '/api/notices/published?pageSize=200', { token: nobody.token });
    expect(res.statusCode).toBe(200);
    const ids = res.json().data.list.map((n: { id: number }) => n.id);
    expect(ids).not.toContain(draft);
    expect(ids.indexOf(newer)).toBeLessThan(ids.indexOf(older));
    expect(res.json().data.list[ids.indexOf(newer)]).toMatchObject({
      title: 'Newer',
      type: 'announcement',
      content: '<p>Body</p>',
    });
    const onlyAnnouncements = await call(t.app, 'GET', '/api/notices/published?type=announcement', {
      token: nobody.token,
    });
    expect(onlyAnnouncements.json().data.list.every((n: { type: string }) => n.type === 'announcement')).toBe(true);

    expect((await call(t.app, 'GET', `/api/notices/${newer}/view`, { token: nobody.token })).json().data.title).toBe(
      'Newer',
    );
    const hidden = await call(t.app, 'GET', `/api/notices/${draft}/view`, { token: nobody.token });
    expect(hidden.statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/api/notices/published')).statusCode).toBe(401);
    expect((await call(t.app, 'GET', '/api/notices/published?pageSize=500', { token: nobody.token })).statusCode).toBe(
      400,
    );
  });
});

describe('DELETE /api/notices/batch', () => {
  it('deletes every id, or (one unknown or foreign id) nothing with 404 naming it', async () => {
    const token = t.demoAdminToken;
    const a = await createNotice(token, { title: 'Batch A' });
    const b = await createNotice(token, { title: 'Batch B' });
    const foreign = await createNotice(other.adminToken, { title: 'Foreign' });

    const partial = await call(t.app, 'DELETE', '/api/notices/batch', {
      token,
      body: { ids: [a, b, foreign, 987_654] },
    });
    expect(partial.statusCode).toBe(404);
    expect(partial.json().error).toBe('system.notice_not_found');
    expect(
      partial
        .json()
        .details.map((d: { message: string }) => d.message)
        .join(' '),
    ).toMatch(new RegExp(`${foreign}.*987654`));
    const left = await t.database.db
      .select()
      .from(notices)
      .where(inArray(notices.id, [a, b, foreign]));
    expect(left).toHaveLength(3);

    const ok = await call(t.app, 'DELETE', '/api/notices/batch', { token, body: { ids: [a, b] } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toEqual({ affected: [a, b] });
    expect(
      await t.database.db
        .select()
        .from(notices)
        .where(inArray(notices.id, [a, b])),
    ).toHaveLength(0);
  });

  it('rejects an empty or duplicated id list with 400 naming ids', async () => {
    for (const ids of [[], [1, 1], ['x']]) {
      const res = await call(t.app, 'DELETE', '/api/notices/batch', { token: t.demoAdminToken, body: { ids } });
      expect(res.statusCode).toBe(400);
      expect(fieldsOf(res)[0]).toMatch(/^ids/);
    }
  });
});
