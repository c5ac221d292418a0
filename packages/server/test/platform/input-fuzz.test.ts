import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { type FuzzCase, fuzzCases, type Operation } from '../helpers/fuzz-cases.ts';

/**
 * Drives every operation of the live OpenAPI document with malformed and hostile input
 * (helpers/fuzz-cases.ts), anonymously and as a tenant administrator (as the platform
 * administrator where the tenant one is refused), and checks what a client and the database see:
 * - no 5xx, whatever the input;
 * - every answer's status and content type are among those the document declares for the
 *   operation, and an error is the envelope (or the protocol's own shape) with the request id;
 * - a validation error names the field that was broken;
 * - a refused request writes nothing: no row in any table (row triggers record every write),
 *   no file in the data directory.
 * A new operation is covered with no work here; a new class of bad input belongs in fuzz-cases.ts.
 * FUZZ_REPORT=<file> writes the failures and the requests that were accepted (for a look).
 */
type Doc = { paths: Record<string, Record<string, Operation>> };

let t: TestApp;
let dataDir: string;
let doc: Doc;
const tokens = { tenant: '', platform: '' };

/**
 * Writes a refused request makes by design: the audit log records every attempt of a signed-in
 * user, refused ones included; a session's last-seen time moves on any authenticated request;
 * a failed sign-in is recorded (the sign-in log is where an administrator sees an attack).
 */
const auditWrites = ['INSERT operation_logs', 'UPDATE user_sessions'];
/** Operations whose every answer is a protocol's own shape, declared in the document. */
const protocolReplies = ['payment.notify.receive'];
const expectedWrites: Record<string, string[]> = {
  'identity.session.login': ['INSERT login_logs'],
  // every payment callback is logged, a refused one most of all (spec §3.2)
  'payment.notify.receive': ['INSERT payment_notify_logs'],
};

async function rows<T>(q: ReturnType<typeof sql>): Promise<T[]> {
  return ((await t.database.db.execute(q)) as unknown as { rows: T[] }).rows;
}

async function recordWrites(): Promise<void> {
  await t.database.db.execute(
    sql`CREATE TABLE fuzz_writes (id bigserial PRIMARY KEY, tbl text NOT NULL, op text NOT NULL)`,
  );
  await t.database.db.execute(sql`
    CREATE FUNCTION fuzz_log() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO fuzz_writes (tbl, op) VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END $$`);
  const tables = await rows<{ name: string }>(sql`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> 'fuzz_writes'`);
  for (const { name } of tables) {
    await t.database.db.execute(
      sql.raw(
        `CREATE TRIGGER fuzz_w AFTER INSERT OR UPDATE OR DELETE ON "${name}" FOR EACH ROW EXECUTE FUNCTION fuzz_log()`,
      ),
    );
  }
}

async function lastWrite(): Promise<number> {
  const [r] = await rows<{ id: string | number | null }>(sql`SELECT max(id) AS id FROM fuzz_writes`);
  return Number(r?.id ?? 0);
}

async function writesSince(id: number): Promise<string[]> {
  const r = await rows<{ tbl: string; op: string }>(sql`SELECT tbl, op FROM fuzz_writes WHERE id > ${id} ORDER BY id`);
  return r.map((w) => `${w.op} ${w.tbl}`);
}

/**
 * After an accepted request, waits until its follow-up work (alert evaluation, notifications,
 * jobs) stops writing, so those writes are never counted against the next, refused request.
 */
async function settle(): Promise<void> {
  let last = await lastWrite();
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 150));
    const now = await lastWrite();
    if (now === last) return;
    last = now;
  }
}

function filesIn(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'atrium-fuzz-'));
  t = await createTestApp({ env: { DATA_DIR: dataDir } });
  tokens.tenant = t.demoAdminToken;
  tokens.platform = t.adminToken;
  doc = (await call(t.app, 'GET', '/api/openapi.json')).json() as Doc;
  // scheduled work writes on its own clock: off for this test, so every write has a request
  const jobs = (await call(t.app, 'GET', '/api/cron-jobs?pageSize=200', { token: t.adminToken })).json().data.list;
  for (const job of jobs as { id: number }[]) {
    const res = await call(t.app, 'POST', `/api/cron-jobs/${job.id}/disable`, { token: t.adminToken });
    expect(res.statusCode, res.body).toBe(200);
  }
  await recordWrites();
}, 120_000);
afterAll(async () => {
  await t?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** the audit log is written after the answer: wait for it, so each write is seen with its request */
const system = {
  operationLogsIdle: () =>
    (t.app as unknown as { system: { operationLogsIdle(): Promise<void> } }).system.operationLogsIdle(),
};

let source = 0;
async function send(c: FuzzCase, token?: string) {
  source++;
  return t.app.inject({
    method: c.method as 'GET',
    url: c.url,
    headers: { ...c.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(c.payload !== undefined ? { payload: c.payload } : {}),
    // a source address per request, so per-IP rate limits never answer in place of validation
    remoteAddress: `127.${(source >> 16) & 255}.${(source >> 8) & 255}.${source & 255}`,
  });
}

function mediaType(header: unknown): string {
  return (
    String(header ?? '')
      .split(';')[0]
      ?.trim() ?? ''
  );
}

/** What is wrong with one answer, or null. */
function problems(op: Operation, c: FuzzCase, res: Awaited<ReturnType<typeof send>>): string | null {
  const status = res.statusCode;
  if (status >= 500) return `${status} ${res.body.slice(0, 300)}`;
  if (c.label === 'long segment below') {
    // another route may match it (`/users/{id}`): any refusal will do, in the envelope
    const body = res.json();
    const ok = status >= 400 && body.code === status && body.requestId === res.headers['x-request-id'];
    return ok ? null : `expected an error in the envelope, got ${status} ${res.body.slice(0, 200)}`;
  }
  const declared = op.responses[String(status)] ?? op.responses.default;
  if (!declared)
    return `${status} is not in the document (${Object.keys(op.responses).join(',')}): ${res.body.slice(0, 200)}`;
  const type = mediaType(res.headers['content-type']);
  const types = Object.keys(declared.content ?? {});
  if (types.length && !types.includes(type))
    return `${status} answered ${type || 'no content type'}, document says ${types}`;
  if (status < 400) return null;
  if (type !== 'application/json') return null; // a declared HTML page
  // a payment channel's own acknowledgement (channel_a's failure is JSON of its own shape)
  if (protocolReplies.includes(op.operationId ?? '')) return null;
  let body: Record<string, unknown>;
  try {
    body = res.json();
  } catch {
    return `${status} body is not JSON: ${res.body.slice(0, 200)}`;
  }
  const ref = declared.content?.['application/json']?.schema?.$ref ?? '';
  if (ref.endsWith('/OAuthErrorBody')) {
    if (typeof body.error !== 'string' || typeof body.error_description !== 'string')
      return `not an OAuth error: ${res.body.slice(0, 200)}`;
    return null;
  }
  if (body.code !== status || typeof body.error !== 'string' || typeof body.message !== 'string')
    return `not the envelope: ${res.body.slice(0, 200)}`;
  if (body.error === 'request.invalid_value')
    return `reached the database; a schema should refuse it: ${res.body.slice(0, 200)}`;
  if (!body.requestId || body.requestId !== res.headers['x-request-id'])
    return `no request id: ${res.body.slice(0, 200)}`;
  if (body.error === 'request.validation_failed' && c.field) {
    const fields = ((body.details ?? []) as { field: string }[]).map((d) => d.field);
    const named = fields.some((f) => f === c.field || f.startsWith(`${c.field}.`) || c.field?.startsWith(`${f}.`));
    if (!named) return `validation error does not name ${c.field}: ${JSON.stringify(body.details)}`;
  }
  return null;
}

describe('input fuzz over the OpenAPI document', () => {
  it('no malformed input gets a 5xx, an undeclared answer, an unnamed field or a write', async () => {
    const operationIds = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(operationIds).toEqual(expect.arrayContaining(Object.keys(expectedWrites)));
    const failures: string[] = [];
    const accepted: string[] = [];
    let sent = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const expected = [...auditWrites, ...(expectedWrites[op.operationId ?? ''] ?? [])];
        for (const c of fuzzCases(path, method, op)) {
          for (const who of ['anonymous', 'tenant'] as const) {
            let token = who === 'anonymous' ? undefined : tokens.tenant;
            const mark = await lastWrite();
            const files = filesIn(dataDir);
            let res = await send(c, token);
            if (who === 'tenant' && res.statusCode === 403 && res.json().error === 'auth.permission_denied') {
              token = tokens.platform;
              res = await send(c, token);
            }
            await system.operationLogsIdle();
            sent++;
            const where = `${c.method} ${path} [${who}] ${c.label}`;
            if (res.statusCode < 300) {
              accepted.push(`${where} → ${res.statusCode}`);
              await settle();
            }
            const problem = problems(op, c, res);
            if (problem) failures.push(`${where} → ${problem}`);
            if (res.statusCode >= 400) {
              const writes = (await writesSince(mark)).filter((w) => !expected.includes(w));
              if (writes.length) failures.push(`${where} → ${res.statusCode} but wrote ${[...new Set(writes)]}`);
              if (filesIn(dataDir) !== files) failures.push(`${where} → ${res.statusCode} but left a file behind`);
            }
            // an operation that ends sessions (sign-out) may have ended ours: sign in again
            if (
              token &&
              res.statusCode < 300 &&
              (await call(t.app, 'GET', '/api/auth/me', { token })).statusCode === 401
            ) {
              tokens.tenant = await login(t.app, 'admin', ADMIN_PASSWORD, 'demo');
              tokens.platform = await login(t.app, 'admin', ADMIN_PASSWORD);
            }
          }
        }
      }
    }
    console.log(`input fuzz: ${sent} requests, ${failures.length} failures`);
    if (process.env.FUZZ_REPORT)
      (await import('node:fs')).writeFileSync(
        process.env.FUZZ_REPORT,
        [...failures, '--- accepted', ...accepted].join('\n'),
      );
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(2000);
  }, 900_000);
});
