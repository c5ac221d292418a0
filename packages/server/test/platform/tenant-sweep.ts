import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { multipartBody, type Part } from '../files/files-helpers.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { type Schema, sampleOf } from '../helpers/sample-body.ts';
import type { Alternative, TenantResources, ValueTable } from './tenant-resources.ts';

/**
 * The tenant sweep's engine (tenant-isolation.test.ts). From the live OpenAPI document it finds
 * every parameter that names a row — each path parameter, and each query or body property named
 * like an id (`id`, `ids`, `spaceId`, `roleIds`, `client_id`, or an object holding one) — and
 * calls the operation as the caller with the owner's real value in that one parameter (the
 * caller's own real values in the others, so an earlier check cannot hide a missing later one).
 *
 * The answer must refuse the owner's row: 404 or 403, or 400/409/422 naming that field, or an
 * OAuth `invalid_client`. A GET that filters by it (a query parameter) or a name every tenant has
 * may succeed, showing none of the owner's rows. After each call the owner's rows — every table
 * with tenant_id, and the link tables whose foreign keys reach one — must be as they were.
 *
 * Every other operation (one that names no row, or whose parameters are all excepted) is called
 * once with the caller's values: the owner's rows stay as they were and a GET shows none of them.
 */
export type Exception = [pattern: RegExp, reason: string];
export type Doc = { paths: Record<string, Record<string, Operation>> };
type Operation = {
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
};
type Param = { name: string; in: 'path' | 'query' | 'body' };
type Request = { path: Record<string, unknown>; query: Record<string, unknown>; body: Record<string, unknown> };

/** A name that holds a row's id or key: `id`, `ids`, `spaceId`, `roleIds`, `client_id`. */
const NAMES_A_ROW = /^ids?$|[a-z]Ids?$|_id$/;
/** Ends the caller's session: called with a session of its own, so the sweep's stays valid. */
const ENDS_THE_SESSION = 'POST /api/auth/logout';

export type SweepOptions = {
  /** tenant B: the caller, an administrator holding every tenant permission */
  caller: TenantResources;
  /** tenant A: whose rows the caller names */
  owner: TenantResources;
  exceptions: Exception[];
  /**
   * `METHOD path param` where the row only narrows which of the caller's own rows are read or
   * acted on (every GET's query parameters are): success is right when it shows and changes
   * nothing of the owner's
   */
  filters: Exception[];
  /** values for fields the schemas cannot sample (a phone number's pattern), or that another field makes required; sent when a 400 names them */
  samples: Record<string, unknown>;
  /** `METHOD path` of the operations to sweep (default: all) */
  only?: (operation: string) => boolean;
  /** a new session of the caller, for the operation that ends one */
  signIn: () => Promise<string>;
};

export type SweepResult = {
  operations: number;
  /** operations with at least one case: a parameter holding the owner's row */
  covered: number;
  cases: number;
  /** operations that name a row only in excepted parameters */
  excepted: number;
  /** operations that name no row, called once with the caller's own values */
  namingNothing: number;
  /** operations with a parameter neither filled with the owner's row nor excepted (each a failure) */
  unfilled: number;
  failures: string[];
  /** exceptions no parameter of the swept operations matched */
  unusedExceptions: string[];
};

/** What one sweep carries from call to call. */
type Run = {
  t: TestApp;
  opts: SweepOptions;
  watch: Awaited<ReturnType<typeof ownerWatch>>;
  failures: string[];
  /** exceptions and filters some parameter matched */
  matched: Set<Exception>;
};

export async function sweepTenants(t: TestApp, opts: SweepOptions): Promise<SweepResult> {
  const doc = (await call(t.app, 'GET', '/api/openapi.json')).json() as Doc;
  const run: Run = {
    t,
    opts,
    watch: await ownerWatch(t, opts.owner.tenant.tenantId),
    failures: [],
    matched: new Set(),
  };
  const result = { operations: 0, covered: 0, cases: 0, excepted: 0, namingNothing: 0, unfilled: 0 };
  const before = await run.watch.digest();
  const leftOver: [string, string, Operation][] = [];
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [lower, op] of Object.entries(ops)) {
      const method = lower.toUpperCase();
      if (opts.only && !opts.only(`${method} ${path}`)) continue;
      result.operations++;
      const params = rowParams(op);
      let cases = 0;
      let unfilled = false;
      for (const param of params) {
        const swept = await sweepParam(run, method, path, op, param);
        if (swept === undefined) unfilled = true;
        else cases += swept;
      }
      result.cases += cases;
      if (unfilled) result.unfilled++;
      else if (cases) result.covered++;
      else if (params.length) result.excepted++;
      else result.namingNothing++;
      if (!cases) leftOver.push([method, path, op]);
    }
  for (const [method, path, op] of leftOver) await callOnce(run, method, path, op);
  const after = await run.watch.digest();
  const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
  if (changed.length) run.failures.push(`the owner's ${changed.join(', ')} changed during the sweep`);
  const unused = [...opts.exceptions, ...opts.filters].filter((e) => !run.matched.has(e));
  return { ...result, failures: run.failures, unusedExceptions: unused.map(([pattern]) => String(pattern)) };
}

/**
 * The cases of one parameter: one per alternative of the owner's row (none when excepted;
 * undefined, and a failure, when the table has no row for it and no exception names it).
 */
async function sweepParam(run: Run, method: string, path: string, op: Operation, param: Param) {
  const { opts } = run;
  const name = `${method} ${path}`;
  const exception = opts.exceptions.find(([pattern]) => pattern.test(`${name} ${param.name}`));
  if (exception) {
    run.matched.add(exception);
    return 0;
  }
  const alternatives = alternativesOf(opts.owner.table, name, param.name);
  if (!alternatives) {
    run.failures.push(
      `${name}: no row of the owner for ${param.name} — add one to tenant-resources.ts, or an exception with its reason`,
    );
    return undefined;
  }
  const filter = opts.filters.find(([pattern]) => pattern.test(`${name} ${param.name}`));
  if (filter) run.matched.add(filter);
  const own = alternativesOf(opts.caller.table, name, param.name);
  for (const [i, alt] of alternatives.entries()) {
    const label = `${name} with the owner's ${param.name}${alt.with ? ` ${JSON.stringify(alt.with)}` : ''}`;
    if (method === 'GET' && !alt.shared) await control(run, label, method, path, op, param, own?.[i]);
    const req = requestOf(method, path, op, opts.caller.table);
    for (const [k, v] of Object.entries(alt.with ?? {})) place(req, k, v, op);
    place(req, param.name, alt.value, op);
    const res = await repaired(run, req, param.name, method, path, op, opts.caller.tenant.adminToken);
    const mayAnswer = Boolean(alt.shared || filter || (method === 'GET' && param.in === 'query'));
    const wrong = verdict(res, param, mayAnswer, opts.owner.mark);
    if (wrong) run.failures.push(`${label} → ${res.statusCode} ${wrong}: ${res.body.slice(0, 200)}`);
    await changedBy(run, label);
  }
  return alternatives.length;
}

/**
 * The control of a read: with the caller's own row in the parameter it finds something (a
 * filter, at least one row), so the owner's row refused or found nowhere is the owner's row's doing.
 */
async function control(
  run: Run,
  label: string,
  method: string,
  path: string,
  op: Operation,
  param: Param,
  own: Alternative | undefined,
) {
  const req = requestOf(method, path, op, run.opts.caller.table);
  for (const [k, v] of Object.entries(own?.with ?? {})) place(req, k, v, op);
  place(req, param.name, own?.value, op);
  const res = await repaired(run, req, param.name, method, path, op, run.opts.caller.tenant.adminToken);
  if (res.statusCode >= 300)
    run.failures.push(`${label}: the caller's own answers ${res.statusCode}, so a refusal proves nothing`);
  else if (param.in === 'query' && listOf(jsonOf(res))?.length === 0)
    run.failures.push(`${label}: the caller's own finds nothing, so an empty answer proves nothing`);
}

/** An operation no case reached, called with the caller's own values: nothing of the owner's may move or show. */
async function callOnce(run: Run, method: string, path: string, op: Operation) {
  const name = `${method} ${path}`;
  const token = name === ENDS_THE_SESSION ? await run.opts.signIn() : run.opts.caller.tenant.adminToken;
  const res = await repaired(run, requestOf(method, path, op, run.opts.caller.table), '', method, path, op, token);
  if (res.statusCode >= 500) run.failures.push(`${name} → ${res.statusCode}: ${res.body.slice(0, 200)}`);
  else if (method === 'GET' && res.body.includes(run.opts.owner.mark))
    run.failures.push(`${name} → ${res.statusCode} shows the owner's rows: ${res.body.slice(0, 200)}`);
  await changedBy(run, name);
}

/** A failure naming the owner's tables written since the last call. */
async function changedBy(run: Run, what: string) {
  const changed = await run.watch.writes();
  if (changed.length) run.failures.push(`${what}: changed the owner's ${changed.join(', ')}`);
}

/**
 * Sends the request. A 400 naming other fields than `param` refused it before the check the
 * sweep is after, so those are filled — with the caller's own row, or from `samples` — and it is
 * sent again (twice at most: a filled field may reveal the next).
 */
async function repaired(
  run: Run,
  req: Request,
  param: string,
  method: string,
  path: string,
  op: Operation,
  token: string,
): Promise<LightMyRequestResponse> {
  const { samples, caller } = run.opts;
  const operation = `${method} ${path}`;
  let res = await send(run.t, method, path, op, req, token);
  for (let round = 0; round < 2; round++) {
    const lacking = fieldsOf(res).filter(
      (f) => f !== param && (f in samples || alternativesOf(caller.table, operation, f)),
    );
    if (!lacking.length) break;
    for (const f of lacking)
      if (f in samples) place(req, f, samples[f], op);
      else placeOwn(req, caller.table, operation, f, op);
    await changedBy(run, `${operation} before its ${lacking.join(', ')} were filled`);
    res = await send(run.t, method, path, op, req, token);
  }
  return res;
}

/** Parameters that name a row: every path parameter; query and body properties named like an id. */
export function rowParams(op: Operation): Param[] {
  const out: Param[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in === 'path' || (p.in === 'query' && NAMES_A_ROW.test(p.name)))
      out.push({ name: p.name, in: p.in as 'path' | 'query' });
  }
  const body = bodySchema(op);
  for (const [name, s] of Object.entries(body?.properties ?? {}))
    if (NAMES_A_ROW.test(name) || holdsARow(s)) out.push({ name, in: 'body' });
  return out;
}

/** An object or list whose items name a row (`targets: [{ type, id }]`). */
function holdsARow(s: Schema): boolean {
  const nested = [...Object.entries(s.properties ?? {})];
  if (nested.some(([name, inner]) => NAMES_A_ROW.test(name) || holdsARow(inner))) return true;
  return [s.items, ...(s.anyOf ?? []), ...(s.oneOf ?? [])].some((inner) => inner !== undefined && holdsARow(inner));
}

function bodySchema(op: Operation): Schema | undefined {
  const [content] = Object.values(op.requestBody?.content ?? {});
  return content?.schema;
}

/** The table's alternatives for a parameter of `METHOD path` (keys: see ValueTable). */
export function alternativesOf(table: ValueTable, operation: string, name: string): Alternative[] | undefined {
  const [method, path] = operation.split(' ') as [string, string];
  let best: Alternative[] | undefined;
  let bestRank = -1;
  for (const [key, alternatives] of Object.entries(table)) {
    const words = key.split(' ');
    if (words.pop() !== name) continue;
    const [prefix = '', only] = words.length === 2 ? [words[1], words[0]] : [words[0]];
    if (only && only !== method) continue;
    if (prefix && path !== prefix && !path.startsWith(`${prefix}/`)) continue;
    // the longest prefix wins, and one naming the method over one that does not
    const rank = prefix.length * 2 + (only ? 1 : 0);
    if (rank > bestRank) [best, bestRank] = [alternatives, rank];
  }
  if (best) return best;
  const singular = name === 'ids' ? 'id' : name.endsWith('Ids') ? name.slice(0, -1) : undefined;
  const of = singular ? alternativesOf(table, operation, singular) : undefined;
  return of?.map((a) => ({ ...a, value: [a.value] }));
}

/** A request of the caller: required values sampled, the rows it must name named with the caller's own. */
function requestOf(method: string, path: string, op: Operation, table: ValueTable): Request {
  const body = sampleOf(bodySchema(op));
  const req: Request = { path: {}, query: {}, body: body && typeof body === 'object' ? (body as never) : {} };
  for (const p of op.parameters ?? []) {
    if (p.in === 'path') req.path[p.name] = sampleOf(p.schema, p.name);
    else if (p.in === 'query' && p.required) req.query[p.name] = sampleOf(p.schema, p.name);
    // a whole page: a list that shows another tenant's rows shows them on it
    if (p.in === 'query' && p.name === 'pageSize') req.query[p.name] = p.schema?.maximum ?? 100;
  }
  const required = new Set([
    ...(op.parameters ?? []).filter((p) => p.in === 'path' || p.required).map((p) => p.name),
    ...(bodySchema(op)?.required ?? []),
  ]);
  for (const param of rowParams(op))
    if (required.has(param.name)) placeOwn(req, table, `${method} ${path}`, param.name, op);
  return req;
}

/** Names the caller's own row in the parameter, with what says what it is. */
function placeOwn(req: Request, table: ValueTable, operation: string, name: string, op: Operation) {
  const own = alternativesOf(table, operation, name)?.[0];
  if (!own) return;
  for (const [k, v] of Object.entries(own.with ?? {})) place(req, k, v, op);
  place(req, name, own.value, op);
}

/** Puts a value where the operation declares the name (path, query or body); nowhere if it does not. */
function place(req: Request, name: string, value: unknown, op: Operation) {
  const declared = (op.parameters ?? []).find((p) => p.name === name);
  if (declared?.in === 'path') req.path[name] = value;
  else if (declared?.in === 'query') req.query[name] = value;
  else if (bodySchema(op)?.properties?.[name]) req.body[name] = value;
}

/** The fields a 400 names. */
function fieldsOf(res: LightMyRequestResponse): string[] {
  if (res.statusCode !== 400) return [];
  return (jsonOf(res)?.details ?? []).map((d: { field: string }) => d.field);
}

function send(t: TestApp, method: string, path: string, op: Operation, req: Request, token: string) {
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(req.path[name])));
  const query = new URLSearchParams(Object.entries(req.query).map(([k, v]) => [k, String(v)]));
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  const [type] = Object.keys(op.requestBody?.content ?? {});
  let payload: string | Buffer | object | undefined;
  if (type === 'multipart/form-data') {
    // fields first: a handler may read them before it streams the file part
    const fields = Object.entries(bodySchema(op)?.properties ?? {});
    const parts: Part[] = [
      ...fields.flatMap(([name, s]) =>
        s.format === 'binary' || req.body[name] === undefined ? [] : [{ field: name, value: String(req.body[name]) }],
      ),
      ...fields.flatMap(([name, s]) =>
        s.format === 'binary' ? [{ field: name, filename: 'sweep.txt', data: Buffer.from('sweep') }] : [],
      ),
    ];
    const multipart = multipartBody(parts);
    payload = multipart.payload;
    Object.assign(headers, multipart.headers);
  } else if (type === 'application/octet-stream') {
    payload = Buffer.from('sweep');
    headers['content-type'] = type;
  } else if (type === 'application/x-www-form-urlencoded') {
    payload = new URLSearchParams(Object.entries(req.body).map(([k, v]) => [k, String(v)])).toString();
    headers['content-type'] = type;
  } else if (type) payload = req.body;
  return t.app.inject({
    method: method as 'GET',
    url: `${url}${[...query].length ? `?${query}` : ''}`,
    headers,
    ...(payload !== undefined ? { payload } : {}),
  });
}

/** What is wrong with the answer to a request naming the owner's row in `param`; undefined: it was refused. */
function verdict(res: LightMyRequestResponse, param: Param, mayAnswer: boolean, mark: string): string | undefined {
  if (res.statusCode === 403 || res.statusCode === 404) return undefined;
  const answer = jsonOf(res);
  if ([400, 409, 422].includes(res.statusCode)) {
    const fields: string[] = (answer?.details ?? []).map((d: { field: string }) => d.field);
    if (fields.some((f: string) => f === param.name || f.startsWith(`${param.name}.`))) return undefined;
    if (param.name === 'client_id' && answer?.error === 'invalid_client') return undefined;
    return 'refused, but not for that field';
  }
  if (res.statusCode < 300 && mayAnswer) {
    if (res.body.includes(mark)) return "shows the owner's rows";
    return listOf(answer)?.length ? 'lists rows for a filter no row of the caller matches' : undefined;
  }
  return res.statusCode < 300 ? "acted on the owner's row" : 'not a refusal';
}

/** The rows of a list answer (`data` or `data.list`); undefined for another answer. */
function listOf(answer: { data?: unknown } | undefined): unknown[] | undefined {
  const data = answer?.data as { list?: unknown } | undefined;
  return Array.isArray(data) ? data : Array.isArray(data?.list) ? data.list : undefined;
}

function jsonOf(res: LightMyRequestResponse) {
  if (!String(res.headers['content-type'] ?? '').includes('json')) return undefined;
  try {
    return JSON.parse(res.body);
  } catch {
    return undefined;
  }
}

type Rows = (q: ReturnType<typeof sql>) => Promise<Record<string, string>[]>;

/**
 * Watches the owner's rows: every table with tenant_id (partitions through their parent), and
 * every link table without one through the foreign keys that reach the owner's rows (user_roles,
 * role_menus, file_refs …). `writes()` names the tables where a committed statement since the last
 * call inserted, updated or deleted one of them (row triggers noting it, cheap enough for every
 * call); `digest()` is their content, compared before and after the whole sweep.
 */
async function ownerWatch(t: TestApp, tenantId: number) {
  const rows: Rows = async (q) =>
    ((await t.database.db.execute(q)) as unknown as { rows: Record<string, string>[] }).rows;
  const owned = (
    await rows(sql`
      SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`)
  ).map((r) => r.name as string);
  const ownedSet = new Set(owned);
  const links = new Map<string, { col: string; parent: string; pcol: string }[]>();
  for (const l of await rows(sql`
    SELECT child.relname AS child, ca.attname AS col, parent.relname AS parent, pa.attname AS pcol
    FROM pg_constraint k
    JOIN pg_class child ON child.oid = k.conrelid JOIN pg_class parent ON parent.oid = k.confrelid
    JOIN pg_attribute ca ON ca.attrelid = k.conrelid AND ca.attnum = k.conkey[1]
    JOIN pg_attribute pa ON pa.attrelid = k.confrelid AND pa.attnum = k.confkey[1]
    WHERE k.contype = 'f' AND cardinality(k.conkey) = 1 ORDER BY 1, 2`)) {
    if (ownedSet.has(l.child as string) || !ownedSet.has(l.parent as string)) continue;
    links.set(l.child as string, [...(links.get(l.child as string) ?? []), l as never]);
  }
  // the owner's row in OLD or NEW: `r` is replaced by the record
  const ownerRow = (table: string) =>
    ownedSet.has(table)
      ? (r: string) => `${r}.tenant_id = ${tenantId}`
      : (r: string) =>
          (links.get(table) ?? [])
            .map(
              (l) =>
                `EXISTS (SELECT 1 FROM "${l.parent}" p WHERE p."${l.pcol}" = ${r}."${l.col}" AND p.tenant_id = ${tenantId})`,
            )
            .join(' OR ');
  const tables = [...owned, ...links.keys()];
  await t.database.db.execute(
    sql.raw(
      [
        'CREATE TABLE IF NOT EXISTS sweep_owner_writes (name text NOT NULL)',
        ...tables.flatMap((table, i) => {
          const row = ownerRow(table);
          return [
            `CREATE OR REPLACE FUNCTION sweep_note_${i}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
              IF TG_OP <> 'INSERT' THEN IF ${row('OLD')} THEN INSERT INTO sweep_owner_writes VALUES (TG_TABLE_NAME); END IF; END IF;
              IF TG_OP <> 'DELETE' THEN IF ${row('NEW')} THEN INSERT INTO sweep_owner_writes VALUES (TG_TABLE_NAME); END IF; END IF;
              RETURN NULL; END $$`,
            `DROP TRIGGER IF EXISTS sweep_note ON "${table}"`,
            `CREATE TRIGGER sweep_note AFTER INSERT OR UPDATE OR DELETE ON "${table}" FOR EACH ROW EXECUTE FUNCTION sweep_note_${i}()`,
          ];
        }),
        'DELETE FROM sweep_owner_writes',
      ].join(';\n'),
    ),
  );
  const digestOf = (table: string) =>
    `SELECT '${table}' AS name, md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '')) AS digest FROM "${table}" x WHERE ${ownerRow(table)('x')}`;
  const digestQuery = sql.raw(tables.map(digestOf).join('\nUNION ALL\n'));
  return {
    async writes(): Promise<string[]> {
      const noted = await rows(sql`DELETE FROM sweep_owner_writes RETURNING name`);
      return [...new Set(noted.map((r) => r.name as string))].sort();
    },
    async digest(): Promise<Record<string, string>> {
      return Object.fromEntries((await rows(digestQuery)).map((r) => [r.name, r.digest]));
    },
  };
}
