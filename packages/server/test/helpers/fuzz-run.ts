import { readdirSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { ADMIN_PASSWORD, call, login, type TestApp } from './app.ts';
import { type FuzzCase, fuzzCases, type Operation } from './fuzz-cases.ts';
import type { Resources } from './resource-fixtures.ts';

/**
 * Drives operations of the live OpenAPI document with the cases of fuzz-cases.ts, anonymously and
 * as the demo tenant's administrator (as the platform administrator where the tenant one is
 * refused), and says what a client and the database saw that they should not:
 * - a 5xx, whatever the input;
 * - a malformed request answered 2xx;
 * - a status or content type the document does not declare for the operation; an error that is
 *   not the envelope (or the protocol's own shape) with the request id;
 * - a validation error that does not name the field that was broken;
 * - a refused request that wrote: a row in any table (row triggers record every write), a file
 *   in the data directory.
 */
export type Doc = { paths: Record<string, Record<string, Operation>> };

export type FuzzReport = {
  failures: string[];
  /** requests answered 2xx (allowed cases only, or the failures say so) */
  accepted: string[];
  /** cases made, and requests sent (each case as the administrator; anonymously too where no sign-in is needed) */
  cases: number;
  sent: number;
  /** operations driven, and those whose path parameters had no real values */
  operations: number;
  withoutResources: string[];
  /**
   * Requests with a path parameter (left as given) that were answered a `…not_found` 404: they
   * stopped at the path value and never reached the checks behind it.
   */
  stoppedAtPath: number;
};

export type FuzzOptions = {
  /** real path values by documented path; none: unknown ids and samples */
  resources?: Resources;
  /** which operations to drive (default: all) */
  only?: (method: string, path: string) => boolean;
  /** writes a refused request makes by design, by operationId (besides the audit log's) */
  expectedWrites?: Record<string, string[]>;
  /** operations whose every answer is a protocol's own shape, declared in the document */
  protocolReplies?: string[];
  /**
   * Body fields named like a reference that are a filter (`METHOD path field` → why): an id that
   * names nothing matches nothing, and a 2xx is right.
   */
  filters?: Record<string, string>;
};

/**
 * Writes a refused request makes by design: the audit log records every attempt of a signed-in
 * user, refused ones included; a session's last-seen time moves on any authenticated request.
 */
const AUDIT_WRITES = ['INSERT operation_logs', 'UPDATE user_sessions'];

/** Reads, then updates, then other writes, then deletes: a case that deletes its resource comes last. */
const ORDER = ['get', 'put', 'patch', 'post', 'delete'];

export async function createFuzzer(t: TestApp, dataDir: string) {
  const rows = async <T>(q: ReturnType<typeof sql>): Promise<T[]> =>
    ((await t.database.db.execute(q)) as unknown as { rows: T[] }).rows;
  await recordWrites(t);
  const lastWrite = async () => {
    const [r] = await rows<{ id: string | number | null }>(sql`SELECT max(id) AS id FROM fuzz_writes`);
    return Number(r?.id ?? 0);
  };
  /** the writes recorded since the last call (one query a request) */
  let mark = 0;
  const newWrites = async () => {
    const found = await rows<{ id: string; tbl: string; op: string }>(
      sql`SELECT id, tbl, op FROM fuzz_writes WHERE id > ${mark} ORDER BY id`,
    );
    mark = Number(found.at(-1)?.id ?? mark);
    return found.map((w) => `${w.op} ${w.tbl}`);
  };
  /**
   * After an accepted request, waits until its follow-up work (alert evaluation, notifications,
   * jobs) stops writing, so those writes are never counted against the next, refused request.
   */
  const settle = async () => {
    let last = await lastWrite();
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 150));
      const now = await lastWrite();
      if (now === last) break;
      last = now;
    }
    mark = last;
  };
  const filesIn = () => readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  /** the audit log is written after the answer: waited for, so each write is seen with its request */
  const operationLogsIdle = () =>
    (t.app as unknown as { system: { operationLogsIdle(): Promise<void> } }).system.operationLogsIdle();
  const tokens = { tenant: t.demoAdminToken, platform: t.adminToken };
  let source = 0;
  const send = (c: FuzzCase, token?: string) => {
    source++;
    return t.app.inject({
      method: c.method as 'GET',
      url: c.url,
      headers: { ...c.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(c.payload !== undefined ? { payload: c.payload } : {}),
      // a source address per request, so per-IP rate limits never answer in place of validation
      remoteAddress: `127.${(source >> 16) & 255}.${(source >> 8) & 255}.${source & 255}`,
    });
  };

  return async function run(doc: Doc, opts: FuzzOptions = {}): Promise<FuzzReport> {
    const report: FuzzReport = {
      failures: [],
      accepted: [],
      cases: 0,
      sent: 0,
      operations: 0,
      withoutResources: [],
      stoppedAtPath: 0,
    };
    await settle(); // what the fixtures set going
    const operations = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
      .filter(({ path, method }) => opts.only?.(method, path) ?? true)
      .sort((a, b) => ORDER.indexOf(a.method) - ORDER.indexOf(b.method));
    for (const { path, method, op } of operations) {
      report.operations++;
      const values = path.includes('{') ? opts.resources?.valuesFor(path) : {};
      if (!values) report.withoutResources.push(`${method.toUpperCase()} ${path}`);
      const expected = [...AUDIT_WRITES, ...(opts.expectedWrites?.[op.operationId ?? ''] ?? [])];
      // an operation that needs credentials (no `security`: the document's bearer token; or only
      // requirements: an OAuth token) refuses every anonymous case alike, before reading it
      const signedIn = !op.security || (op.security.length > 0 && op.security.every((s) => Object.keys(s).length > 0));
      const cases = fuzzCases(path, method, op, {
        path: values,
        ...opts.resources?.extrasFor(method.toUpperCase(), path),
      });
      report.cases += cases.length;
      for (const [i, c] of cases.entries()) {
        for (const who of signedIn && i > 0 ? (['tenant'] as const) : (['anonymous', 'tenant'] as const)) {
          let token = who === 'anonymous' ? undefined : tokens.tenant;
          const files = filesIn();
          let res = await send(c, token);
          if (who === 'tenant' && res.statusCode === 403 && res.json().error === 'auth.permission_denied') {
            token = tokens.platform;
            res = await send(c, token);
          }
          await operationLogsIdle();
          const writes = (await newWrites()).filter((w) => !expected.includes(w));
          report.sent++;
          if (path.includes('{') && !c.label.startsWith('path ') && notFound(res)) report.stoppedAtPath++;
          const where = `${c.method} ${path} [${who}] ${c.label}`;
          if (res.statusCode < 300) {
            report.accepted.push(`${where} → ${res.statusCode}`);
            const field = c.label.replace(/^body (.*): names nothing$/, '$1');
            const filter = c.label.endsWith('names nothing') && opts.filters?.[`${c.method} ${path} ${field}`];
            if (c.malformed && !filter)
              report.failures.push(`${where} → ${res.statusCode}: a malformed request was accepted`);
            await settle();
          }
          const problem = problems(op, c, res, opts.protocolReplies ?? []);
          if (problem) report.failures.push(`${where} → ${problem}`);
          if (res.statusCode >= 400) {
            if (writes.length) report.failures.push(`${where} → ${res.statusCode} but wrote ${[...new Set(writes)]}`);
            if (filesIn() !== files) report.failures.push(`${where} → ${res.statusCode} but left a file behind`);
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
          if (res.statusCode < 300) await newWrites(); // the check's own, and a sign-in's
        }
      }
    }
    return report;
  };
}

type Answer = { statusCode: number; headers: Record<string, unknown>; body: string; json(): Record<string, unknown> };

function notFound(res: Answer): boolean {
  if (res.statusCode !== 404) return false;
  try {
    const error = String(res.json().error);
    return error.endsWith('not_found') && error !== 'route.not_found';
  } catch {
    return false;
  }
}

/** Row triggers on every table record each write (table and kind) in `fuzz_writes`. */
async function recordWrites(t: TestApp): Promise<void> {
  const db = t.database.db;
  await db.execute(sql`CREATE TABLE fuzz_writes (id bigserial PRIMARY KEY, tbl text NOT NULL, op text NOT NULL)`);
  await db.execute(sql`
    CREATE FUNCTION fuzz_log() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO fuzz_writes (tbl, op) VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END $$`);
  const tables = (
    (await db.execute(sql`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> 'fuzz_writes'`)) as unknown as {
      rows: { name: string }[];
    }
  ).rows;
  for (const { name } of tables) {
    await db.execute(
      sql.raw(
        `CREATE TRIGGER fuzz_w AFTER INSERT OR UPDATE OR DELETE ON "${name}" FOR EACH ROW EXECUTE FUNCTION fuzz_log()`,
      ),
    );
  }
}

function mediaType(header: unknown): string {
  return (
    String(header ?? '')
      .split(';')[0]
      ?.trim() ?? ''
  );
}

/** What is wrong with one answer, or null. */
function problems(op: Operation, c: FuzzCase, res: Answer, protocolReplies: string[]): string | null {
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
