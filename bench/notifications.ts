import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';

/**
 * The notification-center scenario of `npm run bench` (issue 4): one event to 10,000 users on
 * inapp + email. The service is built in this process (buildApp, as main.ts does) so the bench can
 * watch the database while it works; the SMTP receiver runs in a worker thread so that receiving
 * mail does not share the service's event loop. The yardstick is a bare multi-row INSERT of the
 * same number of rows into a scratch table of the same database, in the same run.
 */
export const USERS = 10_000;
const TIMEOUT_MS = 10 * 60_000;
const POLL_MS = 50;
const BARE_CHUNK = 1000;
const SMTP_ROLE = 'atrium-bench-smtp';
const PASSWORD = `Bench#${randomBytes(6).toString('hex')}`;

export type NotificationRow = {
  database: string;
  dispatchRows: number;
  /** t0 = just before notify(); each value is seconds from t0 */
  notifyReturnedS: number;
  expansionS: number;
  inappS: number;
  emailsS: number;
  /** no dispatch row of the outbox left pending (outcomes recorded) */
  recordedS: number;
  bareRows: number;
  bareS: number;
  /** the longest the process's event loop went without a turn (see stallMonitor) */
  stallS: number;
  rssMiB: { before: number; peak: number; after: number };
  notes: string[];
};

type Raw = { query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };

// ---- the SMTP receiver (worker thread): counts accepted messages in shared memory, parses nothing
type SmtpData = { role: typeof SMTP_ROLE; shared: SharedArrayBuffer };

if (!isMainThread && (workerData as SmtpData | null)?.role === SMTP_ROLE) void serveSmtp(workerData as SmtpData);

async function serveSmtp({ shared }: SmtpData) {
  const { SMTPServer } = await import('smtp-server');
  // [0] messages accepted, [1] Date.now() of the latest acceptance
  const cells = new BigInt64Array(shared);
  const server = new SMTPServer({
    secure: false,
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    disableReverseLookup: true,
    closeTimeout: 100,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        Atomics.store(cells, 1, BigInt(Date.now()));
        Atomics.add(cells, 0, 1n);
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1', () => parentPort?.postMessage((server.server.address() as AddressInfo).port));
}

async function startSmtp() {
  const shared = new SharedArrayBuffer(16);
  const cells = new BigInt64Array(shared);
  const worker = new Worker(new URL(import.meta.url), { workerData: { role: SMTP_ROLE, shared } satisfies SmtpData });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    port,
    accepted: () => Number(Atomics.load(cells, 0)),
    lastAcceptedAt: () => Number(Atomics.load(cells, 1)),
    stop: () => worker.terminate(),
  };
}

// ---- the scenario
/**
 * Runs the scenario on a fresh embedded PostgreSQL in a temporary DATA_DIR, started by this process
 * the way main.ts starts it (durable: fsync on, as a newcomer runs it), stopped and removed afterwards.
 */
export async function notificationScenario(database: string): Promise<NotificationRow> {
  const [{ buildApp }, { loadConfig }, { seedIdentity }, { createCache }, { openDatabase }, { runMigrations }] =
    await Promise.all([
      import('../packages/server/src/app.ts'),
      import('../packages/server/src/config.ts'),
      import('../packages/server/src/modules/identity/index.ts'),
      import('../packages/server/src/platform/cache/cache.ts'),
      import('../packages/server/src/platform/db/client.ts'),
      import('../packages/server/src/platform/db/migrate.ts'),
    ]);
  const { startEmbeddedPostgres } = await import('../packages/server/src/platform/db/embedded-server.ts');
  const dataDir = mkdtempSync(join(os.tmpdir(), 'atrium-bench-notify-'));
  const smtp = await startSmtp();
  try {
    const config = loadConfig({
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'http://127.0.0.1',
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(48).toString('base64url'),
      SECRET_KEYS: `bench:${randomBytes(32).toString('base64')}`,
      SEED_ADMIN_PASSWORD: PASSWORD,
      CAPTCHA_ENABLED: 'false',
      LOG_LEVEL: 'warn',
    });
    const embedded = await startEmbeddedPostgres(dataDir, { log: () => {} });
    try {
      const db = await openDatabase({ url: embedded.url, kind: 'embedded', poolMax: config.databasePoolMax });
      const cache = createCache({ redisUrl: null, prefix: config.redisKeyPrefix });
      let app: FastifyInstance | null = null;
      try {
        await runMigrations(db);
        app = await buildApp({ config, database: db, cache });
        await seedIdentity(app.ctx, app.permissionCodes);
        const raw = (db.db as unknown as { $client: Raw }).$client;
        const { tenantId, userIds } = await seed(app, raw, smtp.port);
        return await measure(database, app, raw, smtp, tenantId, userIds);
      } finally {
        await app?.close();
        await cache.close();
        await db.close();
      }
    } finally {
      await embedded.stop();
    }
  } finally {
    await smtp.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Setup, not measured: the demo administrator's SMTP configuration and 10,000 active users. */
async function seed(app: FastifyInstance, raw: Raw, smtpPort: number) {
  const login = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password: PASSWORD, tenantCode: 'demo' },
  });
  if (login.statusCode !== 200) throw new Error(`demo admin sign-in failed: ${login.statusCode} ${login.body}`);
  const authorization = `Bearer ${login.json().data.accessToken}`;
  const me = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization } });
  const tenantId = me.json().data.user.tenantId as number;
  const saved = await app.inject({
    method: 'PUT',
    url: '/api/email-config',
    headers: { authorization },
    payload: { host: '127.0.0.1', port: smtpPort, fromAddress: 'noreply@bench.test', fromName: 'Atrium bench' },
  });
  if (saved.statusCode !== 200) throw new Error(`PUT /api/email-config failed: ${saved.statusCode} ${saved.body}`);

  const userIds: number[] = [];
  for (let from = 0; from < USERS; from += BARE_CHUNK) {
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (let i = from; i < Math.min(from + BARE_CHUNK, USERS); i++) {
      const name = `bench-user-${String(i).padStart(5, '0')}`;
      const p = params.push(tenantId, name, '!no-login', `Bench user ${i}`, `${name}@bench.test`);
      tuples.push(`($${p - 4}, $${p - 3}, $${p - 2}, $${p - 1}, $${p}, 'active')`);
    }
    const res = await raw.query(
      `insert into users (tenant_id, username, password_hash, nickname, email, status) values ${tuples.join(', ')} returning id`,
      params,
    );
    for (const r of res.rows) userIds.push(Number(r.id));
  }
  return { tenantId, userIds };
}

/**
 * When the outbox row turned `done` and when each batch of in-app rows was inserted, recorded by
 * the database itself (clock_timestamp(), before commit): polling from this process cannot see
 * them on time while the fan-out keeps the event loop busy (see the stall in the report).
 * Setup, not measured; one row per outbox update and one per insert statement.
 */
async function installMarks(raw: Raw) {
  for (const statement of [
    'create table bench_marks (what text not null, at timestamptz not null, n integer not null)',
    `create function bench_mark_expanded() returns trigger language plpgsql as $$
      begin insert into bench_marks values ('expanded', clock_timestamp(), 1); return null; end $$`,
    `create trigger bench_mark_expanded after update of status on notification_outbox for each row
      when (new.status = 'done' and old.status <> 'done') execute function bench_mark_expanded()`,
    `create function bench_mark_inapp() returns trigger language plpgsql as $$
      begin insert into bench_marks select 'inapp', clock_timestamp(), count(*) from new_rows; return null; end $$`,
    `create trigger bench_mark_inapp after insert on in_app_messages referencing new table as new_rows
      for each statement execute function bench_mark_inapp()`,
  ])
    await raw.query(statement);
}

/**
 * The longest a 10 ms interval timer of this process fired late: while the event loop does not
 * turn, nothing else runs in the process — no timer, no I/O, no HTTP request is answered.
 */
function stallMonitor() {
  const period = 10;
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - period);
    last = now;
  }, period);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last - period) / 1000;
    },
  };
}

/** Database clock − this process's clock in ms, from the quickest of five round trips. */
async function clockOffset(raw: Raw): Promise<number> {
  let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
  for (let i = 0; i < 5; i++) {
    const before = Date.now();
    const res = await raw.query('select extract(epoch from clock_timestamp()) * 1000 as ms');
    const after = Date.now();
    if (after - before < best.rtt)
      best = { rtt: after - before, offset: Number(res.rows[0]?.ms) - (before + after) / 2 };
  }
  return best.offset;
}

type Decisions = { channel: string; decision: string; reason_code: string | null; n: number; error: string | null }[];

async function measure(
  database: string,
  app: FastifyInstance,
  raw: Raw,
  smtp: Awaited<ReturnType<typeof startSmtp>>,
  tenantId: number,
  userIds: number[],
): Promise<NotificationRow> {
  await installMarks(raw);
  const offset = await clockOffset(raw);
  const one = async (text: string, params: unknown[] = []) => (await raw.query(text, params)).rows[0] ?? {};
  const inappCount = async () =>
    Number((await one('select count(*)::int as n from in_app_messages where tenant_id = $1', [tenantId])).n);
  const rss = () => process.memoryUsage.rss() / 2 ** 20;
  const before = rss();
  let peak = before;

  const stalls = stallMonitor();
  const t0 = Date.now();
  const outboxId = await app.messaging.notify('wiki.doc.mentioned', {
    tenantId,
    recipients: userIds.map((id) => ({ type: 'user' as const, id })),
    variables: { docTitle: 'Quarterly plan', actorName: 'Bench' },
  });
  const notifyReturnedAt = Date.now();
  const decisions = async () =>
    (
      await raw.query(
        `select channel, decision, reason_code, count(*)::int as n, min(error) as error
          from notification_dispatches where outbox_id = $1 group by 1, 2, 3 order by 1, 2, 3`,
        [outboxId],
      )
    ).rows as Decisions;

  // Polling decides when everything is over (and the time-out); the times come from the marks.
  let status = 'pending';
  let inapp = 0;
  let lastCheck = 0;
  for (;;) {
    peak = Math.max(peak, rss());
    if (status !== 'done')
      status = String((await one('select status from notification_outbox where id = $1', [outboxId])).status);
    if (status === 'done' && inapp < USERS) inapp = await inappCount();
    if (status === 'done' && inapp >= USERS && smtp.accepted() >= USERS) {
      if (!(await decisions()).some((r) => r.decision === 'pending')) break;
    }
    if (Date.now() - t0 > TIMEOUT_MS)
      throw new Error(
        `notifications (${database}): not finished ${TIMEOUT_MS / 60_000} minutes after notify — outbox ${status}, ` +
          `${inapp}/${USERS} in-app rows, ${smtp.accepted()}/${USERS} emails accepted, ` +
          `dispatch rows: ${JSON.stringify(await decisions())}`,
      );
    // Rows are written and mails accepted before their outcome is recorded: once nothing is pending,
    // what is missing never comes. Checked once a second.
    if (status === 'done' && Date.now() - lastCheck >= 1000) {
      lastCheck = Date.now();
      const rows = await decisions();
      if (!rows.some((r) => r.decision === 'pending') && ((await inappCount()) < USERS || smtp.accepted() < USERS))
        throw new Error(
          `notifications (${database}): every dispatch row is recorded but only ${await inappCount()} in-app rows ` +
            `and ${smtp.accepted()} emails arrived: ${JSON.stringify(rows)}`,
        );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const stallS = stalls.stop();
  const after = rss();

  const marks = (
    await raw.query('select what, extract(epoch from at) * 1000 as ms, n from bench_marks order by at, what')
  ).rows.map((m) => ({ what: String(m.what), at: Number(m.ms) - offset, n: Number(m.n) }));
  const expandedAt = marks.find((m) => m.what === 'expanded')?.at ?? Number.NaN;
  let inappAt = Number.NaN;
  let written = 0;
  for (const m of marks.filter((m) => m.what === 'inapp')) {
    written += m.n;
    if (written >= USERS) {
      inappAt = m.at;
      break;
    }
  }
  const recordedAt = Number(
    (
      await one(
        'select extract(epoch from max(updated_at)) * 1000 as ms from notification_dispatches where outbox_id = $1',
        [outboxId],
      )
    ).ms,
  );
  for (const name of ['bench_mark_inapp on in_app_messages', 'bench_mark_expanded on notification_outbox'])
    await raw.query(`drop trigger ${name}`);
  await raw.query('drop function bench_mark_inapp(), bench_mark_expanded()');
  await raw.query('drop table bench_marks');

  const final = await decisions();
  const dispatchRows = final.reduce((sum, r) => sum + r.n, 0);
  const notes: string[] = [];
  const expected = USERS * 2;
  if (!(final.every((r) => r.decision === 'sent') && dispatchRows === expected))
    notes.push(
      `${database}: dispatch rows are not ${expected.toLocaleString('en-US')} all sent: ` +
        final.map((r) => `${r.channel}/${r.decision}${r.reason_code ? `/${r.reason_code}` : ''} ${r.n}`).join(', '),
    );
  const inappRows = await inappCount();
  if (inappRows !== USERS || smtp.accepted() !== USERS)
    notes.push(`${database}: ${inappRows} in-app rows and ${smtp.accepted()} accepted emails (expected ${USERS} each)`);

  const bareRows = dispatchRows + inappRows;
  const bareS = await bareInsert(raw, bareRows);
  const seconds = (at: number) => (at - t0) / 1000;
  return {
    database,
    dispatchRows,
    notifyReturnedS: seconds(notifyReturnedAt),
    expansionS: seconds(expandedAt),
    inappS: seconds(inappAt),
    emailsS: seconds(smtp.lastAcceptedAt()),
    recordedS: seconds(recordedAt),
    bareRows,
    bareS,
    stallS,
    rssMiB: { before, peak, after },
    notes,
  };
}

/** The yardstick: `rows` rows of 11 values (+ serial id) in multi-row INSERTs of 1,000, each its own statement. */
async function bareInsert(raw: Raw, rows: number): Promise<number> {
  await raw.query(`create table bench_bare_insert (
    id serial primary key, tenant_id integer, outbox_id integer not null, event_key text not null,
    channel text not null, recipient_type text not null, recipient_id integer, recipient_key text not null,
    contact jsonb not null, decision text not null, created_at timestamptz not null, updated_at timestamptz not null)`);
  try {
    const start = performance.now();
    for (let from = 0; from < rows; from += BARE_CHUNK) {
      const params: unknown[] = [];
      const tuples: string[] = [];
      const now = new Date();
      for (let i = from; i < Math.min(from + BARE_CHUNK, rows); i++) {
        const email = `bench-user-${String(i % USERS).padStart(5, '0')}@bench.test`;
        const contact = JSON.stringify({ name: `Bench user ${i}`, email, phone: null, address: null });
        const base = params.push(1, 1, 'wiki.doc.mentioned', i % 2 ? 'email' : 'inapp', 'user', i, `u:${i}`);
        params.push(contact, 'pending', now, now);
        tuples.push(`(${Array.from({ length: 11 }, (_, k) => `$${base - 6 + k}`).join(', ')})`);
      }
      await raw.query(
        `insert into bench_bare_insert (tenant_id, outbox_id, event_key, channel, recipient_type, recipient_id,
          recipient_key, contact, decision, created_at, updated_at) values ${tuples.join(', ')}`,
        params,
      );
    }
    return (performance.now() - start) / 1000;
  } finally {
    await raw.query('drop table bench_bare_insert');
  }
}

// ---- the report section
type Table = (head: string[], body: string[][], textColumns?: number) => string[];

/** The "## Notifications" section of bench/results/latest.md. */
export function notificationSection(rows: NotificationRow[], table: Table, extraNotes: string[] = []): string[] {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const s = (n: number) => fmt(n, 2);
  const bareRows = rows[0]?.bareRows ?? 0;
  return [
    '## Notifications',
    '',
    `One \`notify('wiki.doc.mentioned')\` to ${fmt(USERS)} active users of the demo tenant, default channels ` +
      'inapp + email, through the service built in the bench process (buildApp, production mode, memory cache) on a fresh embedded PostgreSQL, ' +
      'its pg-boss worker doing the rest. SMTP goes to a local `smtp-server` (plain, no auth) in a worker thread ' +
      'that counts messages and parses nothing. Seconds from just before `notify()` until: the outbox row is ' +
      '`done` (expansion) and the insert that completed the in-app rows, both stamped by the database ' +
      '(`clock_timestamp()` in a trigger: polling from this process cannot see them on time while the event loop ' +
      "is stalled); the last email accepted, on the receiver's clock. Decisions/s = dispatch rows ÷ expansion s. " +
      'Bare INSERT = as many rows as the scenario wrote (dispatch + in-app rows) into a 12-column scratch table of ' +
      `the same database, ${fmt(BARE_CHUNK)} rows per statement; ratio = bare s ÷ scenario s (1 = as fast as ` +
      'writing the rows bare). Longest stall = the longest a 10 ms timer of the process fired late: while it ' +
      'lasts nothing else in the process runs, HTTP requests included. RSS: the bench process, shared by the ' +
      'service, the SMTP worker thread and the bench; a run starts from what earlier runs in it left.',
    '',
    ...table(
      [
        'database',
        'decisions/s',
        'expansion s',
        'all in-app rows s',
        'all emails accepted s',
        `bare INSERT of ${fmt(bareRows)} rows s`,
        'ratio in-app',
        'ratio emails',
        'longest stall s',
      ],
      rows.map((r) => [
        r.database,
        fmt(r.dispatchRows / r.expansionS),
        s(r.expansionS),
        s(r.inappS),
        s(r.emailsS),
        r.bareRows === bareRows ? s(r.bareS) : `${s(r.bareS)} (${fmt(r.bareRows)} rows)`,
        fmt(r.bareS / r.inappS, 3),
        fmt(r.bareS / r.emailsS, 3),
        s(r.stallS),
      ]),
      1,
    ),
    '',
    ...rows.map(
      (r) =>
        `- ${r.database}: ${fmt(r.dispatchRows)} dispatch rows; notify() returned after ${s(r.notifyReturnedS)} s; ` +
        `every outcome recorded after ${s(r.recordedS)} s; RSS ${fmt(r.rssMiB.before)} MiB before notify, ` +
        `peak ${fmt(r.rssMiB.peak)}, ${fmt(r.rssMiB.after)} MiB when done`,
    ),
    ...[...rows.flatMap((r) => r.notes), ...extraNotes].map((n) => `- Note: ${n}`),
    '',
  ];
}
