import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { call, login, type TestApp } from '../helpers/app.ts';
import { USER_PASSWORD } from '../helpers/fixtures.ts';

/**
 * A small organisation in one tenant, built through the identity API as its administrator:
 *   hq ─ eng ─ backend        sales        role "editors"
 * alice (backend), erin (eng), bob (sales, editor), carol (nowhere), dave (eng, disabled).
 */
export type OrgUser = { id: number; token: string };
export type Org = {
  depts: { hq: number; eng: number; backend: number; sales: number };
  editors: number;
  alice: OrgUser;
  erin: OrgUser;
  bob: OrgUser;
  carol: OrgUser;
  dave: { id: number };
};

async function post(t: TestApp, token: string, url: string, body: object): Promise<number> {
  const res = await call(t.app, 'POST', url, { token, body });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
  return res.json().data.id;
}

export async function buildOrg(t: TestApp, adminToken: string, tenantCode: string): Promise<Org> {
  const tag = randomBytes(3).toString('hex');
  const hq = await post(t, adminToken, '/api/departments', { name: `HQ ${tag}` });
  const eng = await post(t, adminToken, '/api/departments', { name: `Eng ${tag}`, parentId: hq });
  const backend = await post(t, adminToken, '/api/departments', { name: `Backend ${tag}`, parentId: eng });
  const sales = await post(t, adminToken, '/api/departments', { name: `Sales ${tag}` });
  const editors = await post(t, adminToken, '/api/roles', { code: `editors-${tag}`, name: `Editors ${tag}` });

  async function user(name: string, fields: object, status: 'active' | 'disabled' = 'active') {
    const username = `${name}-${tag}`;
    const id = await post(t, adminToken, '/api/users', {
      username,
      password: USER_PASSWORD,
      nickname: name,
      status,
      ...fields,
    });
    return { id, username };
  }
  const signedIn = async (u: { id: number; username: string }) => ({
    id: u.id,
    token: await login(t.app, u.username, USER_PASSWORD, tenantCode),
  });

  return {
    depts: { hq, eng, backend, sales },
    editors,
    alice: await signedIn(await user('alice', { departmentId: backend })),
    erin: await signedIn(await user('erin', { departmentId: eng })),
    bob: await signedIn(await user('bob', { departmentId: sales, roleIds: [editors] })),
    carol: await signedIn(await user('carol', {})),
    dave: { id: (await user('dave', { departmentId: eng }, 'disabled')).id },
  };
}

export type Target = { type: 'user' | 'role' | 'dept'; id: number };

/** Creates a draft through the API (201 asserted); returns its id. */
export async function draft(t: TestApp, token: string, body: object = {}): Promise<number> {
  return post(t, token, '/api/announcements', { title: 'Hello', content: '<p>Body</p>', ...body });
}

/** Creates and publishes; returns the id. */
export async function published(t: TestApp, token: string, body: object = {}): Promise<number> {
  const id = await draft(t, token, body);
  const res = await call(t.app, 'POST', `/api/announcements/${id}/publish`, { token });
  expect(res.statusCode, res.body).toBe(200);
  return id;
}

/** Ids in the caller's inbox (every page). */
export async function inboxIds(t: TestApp, token: string, query = ''): Promise<number[]> {
  const res = await call(t.app, 'GET', `/api/announcements/inbox?pageSize=200${query}`, { token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.list.map((a: { id: number }) => a.id);
}

export async function unreadCount(t: TestApp, token: string): Promise<number> {
  const res = await call(t.app, 'GET', '/api/announcements/unread-count', { token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.count;
}
