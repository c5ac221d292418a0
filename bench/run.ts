import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { embeddedUrl } from '../packages/server/src/platform/db/embedded-server.ts';
import { freeLoopbackPort } from '../packages/server/src/platform/net/free-port.ts';
import { driveSection, driveTreeScenario, driveTreeTargets } from './drive.ts';
import {
  CHUNK_SIZE,
  createTestFile,
  type DownloadResult,
  downloads,
  FILE_SIZE,
  type FileRow,
  fileScenarios,
  MiB,
  rssMiB,
  staticRows,
  type TestFile,
} from './files.ts';
import {
  frontendErrorRows,
  frontendErrorSection,
  frontendErrorsAloneNote,
  frontendErrorTargets,
  type ReportHarness,
} from './frontend-errors.ts';
import { notificationScenario, notificationSection } from './notifications.ts';
import {
  aloneNote,
  atriumRows,
  type Harness,
  type OAuthRow,
  OIDC_PROVIDER_SCRIPT,
  oauthSection,
  oauthTargets,
  oidcProviderRows,
} from './oauth.ts';
import { paymentScenario, paymentSection } from './payments.ts';
import { type PgMemory, postgresMemory } from './postgres-memory.ts';
import { serviceArgs, stop } from './service-command.ts';
import { type Capture, captureSql } from './sql-capture.ts';
import { limitTarget, ratioTarget, type Target, targetTable, verdict } from './targets.ts';

/**
 * `npm run bench`: the service as a newcomer runs it (no DATABASE_URL: its embedded PostgreSQL in a
 * fresh DATA_DIR) against its yardsticks, same machine, same Node, same load: bare Fastify, and bare
 * Fastify + pg sending exactly the scenario's SQL to the same database server (bench/baseline-pg.ts);
 * first and later start times, the service's RSS and the PostgreSQL processes' PSS; then the file
 * scenarios (bench/files.ts) against the same disk and `@fastify/static`; the OAuth scenario
 * (bench/oauth.ts) against oidc-provider; the notification scenario (bench/notifications.ts); the
 * front-end error scenario (bench/frontend-errors.ts). Writes bench/results/latest.md, the issue's
 * targets first. `BENCH_ONLY=notifications`, `oauth` or `frontend-errors` runs that scenario alone and
 * replaces only its section of latest.md.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const MEASURE_SECONDS = 8;
const ADMIN_PASSWORD = `Bench#${randomBytes(6).toString('hex')}`;
const ONLY = process.env.BENCH_ONLY || null;
const ALONE = ['notifications', 'oauth', 'frontend-errors', 'drive', 'payments'];
const LATEST = join(ROOT, 'bench/results/latest.md');
const DATABASE = 'embedded PostgreSQL';
const BASELINE_PG_SCRIPT = join(ROOT, 'bench/baseline-pg.ts');
/** the issue's targets for the request scenarios, start times and memory */
const GOALS = {
  health: 0.8,
  users: 0.5,
  usersP99Ms: 20,
  firstStartS: 10,
  laterStartS: 3,
  serviceRssMiB: 200,
  postgresPssMiB: 100,
};

type Measure = { reqPerSec: number; p50: number; p99: number; non2xx: number; errors: number };
type Row = { scenario: string; yardstick?: { name: string } & Measure; goal?: number } & Measure;
type Scenario = { name: string; method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string };
type Memory = { serviceMiB: number; postgres: PgMemory | null };
type Service = { child: ChildProcess; url: string; dataDir: string; env: Record<string, string>; startSeconds: number };
type Lifecycle = { firstStartS: number; laterStartS: number; first: Memory; ready: Memory; end: Memory };

const children = new Set<ChildProcess>();
/** DATA_DIRs of the services started, for the clean-up of their PostgreSQL if the bench fails */
const dataDirs = new Set<string>();

async function main() {
  if (ONLY !== null && !ALONE.includes(ONLY))
    throw new Error(`BENCH_ONLY=${ONLY}: the scenarios that run alone are ${ALONE.map((s) => `"${s}"`).join(', ')}`);
  if (ONLY === 'notifications') return notificationsOnly();
  if (ONLY === 'oauth') return oauthOnly();
  if (ONLY === 'frontend-errors') return frontendErrorsOnly();
  if (ONLY === 'drive') return driveOnly();
  if (ONLY === 'payments') return paymentsOnly();
  const loadAtStart = os.loadavg()[0] ?? 0;
  const rows: Row[] = [];
  const fileRows: FileRow[] = [];
  const notes: string[] = [];

  const baseline = await startBaseline();
  const bare = await measure(baseline.url, { name: 'bare Fastify, GET / → {ok:true}', method: 'GET', path: '/' });
  rows.push({ scenario: 'bare Fastify, GET / → {ok:true}', ...bare });
  await stop(baseline.child);
  const oauthRows: OAuthRow[] = await oidcProviderRows(harness);

  // The 256 MiB test file, once per run, and the download yardstick serving it.
  const workDir = mkdtempSync(join(os.tmpdir(), 'atrium-bench-files-'));
  let file: TestFile;
  let yardstick: DownloadResult;
  try {
    file = await createTestFile(workDir);
    const served = await startStatic(workDir);
    try {
      yardstick = await downloads(`${served.url}/${file.name}`, {}, file, served.child.pid);
    } finally {
      await stop(served.child);
    }
  } catch (err) {
    rmSync(workDir, { recursive: true, force: true });
    throw err;
  }
  fileRows.push(...staticRows(yardstick));

  // First start on an empty DATA_DIR (initdb, migrations, seed), stopped, then started again on it:
  // the later start is the service measured below.
  let lifecycle: Lifecycle;
  let captures: Capture[];
  const first = await startService();
  try {
    const firstReady = memoryOf(first);
    await stop(first.child);
    const service = await restartService(first);
    const ready = memoryOf(service);
    try {
      const token = await signIn(service.url);
      const bearer = { authorization: `Bearer ${token}` };
      const health: Scenario = { name: 'GET /api/health', method: 'GET', path: '/api/health' };
      const users: Scenario = {
        name: 'GET /api/users?page=1&pageSize=20 (bearer)',
        method: 'GET',
        path: '/api/users?page=1&pageSize=20',
        headers: bearer,
      };
      await checkedGet(service.url + users.path, bearer); // caches the principal, as in the load
      captures = await captureSql(service.dataDir, [
        { scenario: 'health', url: service.url + health.path },
        { scenario: 'users', url: service.url + users.path, headers: bearer },
      ]);
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
      const yard = await startScript(
        BASELINE_PG_SCRIPT,
        { PG_URL: embeddedUrl(service.dataDir), SESSION_ID: String(claims.sid), USER_ID: String(claims.sub) },
        '/ready',
      );
      try {
        // each yardstick measured right before its scenario, so both see the same machine
        for (const [s, goal, what] of [
          [health, GOALS.health, 'select 1 every 2 s'],
          [users, GOALS.users, 'page + count'],
        ] as const) {
          const name = `bare Fastify + pg, ${s.method} ${s.path.split('?')[0]} → ${what}`;
          const floor = { name, ...(await measure(yard.url, s)) };
          rows.push({ scenario: name, ...floor });
          rows.push({ scenario: s.name, yardstick: floor, goal, ...(await measure(service.url, s)) });
        }
      } finally {
        await stop(yard.child);
      }
      const login = JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD });
      const json = { 'content-type': 'application/json' };
      const loginScenario: Scenario = { name: 'POST /api/auth/login', method: 'POST', path: '/api/auth/login' };
      rows.push({
        scenario: loginScenario.name,
        ...(await measure(service.url, { ...loginScenario, headers: json, body: login })),
      });

      if (statSync(service.dataDir).dev !== statSync(workDir).dev)
        notes.push('DATA_DIR and the test file are on different filesystems');
      const pid = service.child.pid;
      for (const r of await fileScenarios({ ...service, pid }, await signIn(service.url), file, yardstick)) {
        if (r.note) notes.push(r.note);
        fileRows.push(r);
      }
      oauthRows.push(...(await atriumRows(harness, DATABASE, service)));
      lifecycle = {
        firstStartS: first.startSeconds,
        laterStartS: service.startSeconds,
        first: firstReady,
        ready,
        end: memoryOf(service),
      };
    } finally {
      await stop(service.child);
    }
  } finally {
    await stop(first.child);
    rmSync(first.dataDir, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  }
  // after every service child has stopped: the in-process scenario has the machine to itself
  const notificationRows = [await notificationScenario(DATABASE)];
  const reportRows = await frontendErrorRows(reportHarness, DATABASE);
  const driveRows = [await driveTreeScenario(DATABASE)];
  const paymentRows = await paymentScenario();

  const failed = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
  for (const r of failed) notes.push(`${r.scenario}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  // Evidence of other work on the machine; the average trails by about a minute, the bench adds about 2.
  notes.unshift(
    `1-minute load average ${loadAtStart.toFixed(2)} before the run, ${(os.loadavg()[0] ?? 0).toFixed(2)} at its end`,
  );
  const targets = [
    ...requestTargets(rows),
    ...lifecycleTargets(lifecycle),
    ...fileTargets(fileRows),
    ...oauthTargets(oauthRows),
    ...frontendErrorTargets(reportRows),
    ...driveTreeTargets(driveRows),
  ];
  const report = [
    render(rows, bare.reqPerSec, fileRows, lifecycle, captures, targets, notes),
    oauthSection(oauthRows, bare, SETTINGS, table).join('\n'),
    notificationSection(notificationRows, table).join('\n'),
    frontendErrorSection(reportRows, table).join('\n'),
    driveSection(driveRows, table).join('\n'),
    paymentSection(paymentRows, table).join('\n'),
  ].join('\n');
  if (paymentRows.some((r) => r.problems.length > 0)) process.exitCode = 1;
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(LATEST, report);
  console.log(report);
}

/** BENCH_ONLY=notifications: replaces the Notifications section of latest.md, keeps the rest. */
async function notificationsOnly() {
  const loadAtStart = os.loadavg()[0] ?? 0;
  const rows = [await notificationScenario(DATABASE)];
  const note =
    `run alone (BENCH_ONLY=notifications) on ${new Date().toISOString()}, Node ${process.version}, ` +
    `${os.cpus().length} cores; 1-minute load average ${loadAtStart.toFixed(2)} before, ` +
    `${(os.loadavg()[0] ?? 0).toFixed(2)} after. The sections above, and the Targets table at the top, are from the last full run`;
  const section = notificationSection(rows, table, [note]).join('\n');
  const previous = existsSync(LATEST) ? readFileSync(LATEST, 'utf8') : '# Atrium benchmark\n';
  const kept = previous.replace(/\n## Notifications\n[\s\S]*?(?=\n## |$)/, '\n').replace(/\n*$/, '\n');
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(LATEST, `${kept}\n${section}`);
  console.log(section);
}

/** BENCH_ONLY=oauth: bare Fastify and oidc-provider, each alone, then a fresh service; replaces the OAuth section of latest.md. */
async function oauthOnly() {
  const loadAtStart = os.loadavg()[0] ?? 0;
  const baseline = await startBaseline();
  const bare = await measure(baseline.url, { name: 'bare Fastify', method: 'GET', path: '/' });
  await stop(baseline.child);
  const rows = await oidcProviderRows(harness);
  const service = await startService();
  try {
    rows.push(...(await atriumRows(harness, DATABASE, service)));
  } finally {
    await stop(service.child);
    rmSync(service.dataDir, { recursive: true, force: true });
  }
  const section = oauthSection(rows, bare, SETTINGS, table, [aloneNote('oauth', loadAtStart)]).join('\n');
  const previous = existsSync(LATEST) ? readFileSync(LATEST, 'utf8') : '# Atrium benchmark\n';
  const existing = /\n## OAuth\n[\s\S]*?(?=\n## |$)/;
  const next = existing.test(previous)
    ? previous.replace(existing, `\n${section}`)
    : previous.includes('\n## Notifications\n')
      ? previous.replace('\n## Notifications\n', `\n${section}\n## Notifications\n`)
      : `${previous.replace(/\n*$/, '\n')}\n${section}`;
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(LATEST, next);
  console.log(section);
}

/** BENCH_ONLY=frontend-errors: replaces the Front-end errors section of latest.md, keeps the rest. */
async function frontendErrorsOnly() {
  const loadAtStart = os.loadavg()[0] ?? 0;
  const rows = await frontendErrorRows(reportHarness, DATABASE);
  replaceSection('Front-end errors', frontendErrorSection(rows, table, [frontendErrorsAloneNote(loadAtStart)]));
}

/** BENCH_ONLY=drive: the drive tree scenarios alone; replaces the Drive section of latest.md, keeps the rest. */
async function driveOnly() {
  const loadAtStart = os.loadavg()[0] ?? 0;
  const rows = [await driveTreeScenario(DATABASE)];
  const note =
    `run alone (BENCH_ONLY=drive) on ${new Date().toISOString()}, Node ${process.version}, ${os.cpus().length} cores; ` +
    `1-minute load average ${loadAtStart.toFixed(2)} before, ${(os.loadavg()[0] ?? 0).toFixed(2)} after; ` +
    `targets: ${driveTreeTargets(rows)
      .map((t) => `${t.name} ${t.compared} (${t.met ? 'met' : 'NOT met'})`)
      .join('; ')}`;
  replaceSection('Drive', driveSection(rows, table, [note]));
}

/** BENCH_ONLY=payments: the payment callback scenarios alone; replaces the Payments section of latest.md, keeps the rest. */
async function paymentsOnly() {
  const loadAtStart = os.loadavg()[0] ?? 0;
  const rows = await paymentScenario();
  replaceSection('Payments', paymentSection(rows, table, [aloneNote('payments', loadAtStart)]));
  // the storm's one-change-one-event check (and the throughput run's) fails the run, after its numbers are written
  if (rows.some((r) => r.problems.length > 0)) process.exitCode = 1;
}

/** Replaces the `## heading` section of latest.md with `lines` (appended if missing), keeping the rest; prints it. */
function replaceSection(heading: string, lines: string[]) {
  const section = lines.join('\n');
  const previous = existsSync(LATEST) ? readFileSync(LATEST, 'utf8') : '# Atrium benchmark\n';
  const existing = new RegExp(`\\n## ${heading}\\n[\\s\\S]*?(?=\\n## |$)`);
  const next = existing.test(previous)
    ? previous.replace(existing, () => `\n${section}`)
    : `${previous.replace(/\n*$/, '\n')}\n${section}`;
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(LATEST, next);
  console.log(section);
}

/** The platform administrator's access token. */
async function signIn(base: string): Promise<string> {
  const login = JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD });
  const headers = { 'content-type': 'application/json' };
  const res = await fetch(`${base}/api/auth/login`, { method: 'POST', headers, body: login });
  if (res.status !== 200) throw new Error(`bench sign-in failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { accessToken: string } }).data.accessToken;
}

async function measure(base: string, s: Scenario): Promise<Measure> {
  const opts = {
    url: base + s.path,
    method: s.method,
    headers: s.headers,
    body: s.body,
    connections: CONNECTIONS,
  };
  await autocannon({ ...opts, duration: WARMUP_SECONDS });
  const r = await autocannon({ ...opts, duration: MEASURE_SECONDS });
  return {
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

/** The service on a fresh temporary DATA_DIR (no DATABASE_URL: its embedded PostgreSQL), timed from spawn to a 200 from /api/health. */
async function startService(extraEnv: Record<string, string> = {}): Promise<Service> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'atrium-bench-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(48).toString('base64url'),
    SECRET_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    SEED_ADMIN_PASSWORD: ADMIN_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOGIN_IP_LIMIT_PER_MINUTE: '100000',
    LOGIN_ACCOUNT_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  try {
    return await restartService({ dataDir, env });
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** The service on `dataDir` with the same environment (secrets included), on a new free port. */
async function restartService(from: { dataDir: string; env: Record<string, string> }): Promise<Service> {
  const port = await freeLoopbackPort();
  // production requires the public address; here it is the port this start listens on
  const env = { ...from.env, PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` };
  dataDirs.add(from.dataDir);
  const t0 = performance.now();
  const child = launch(serviceArgs(), env);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(child, `${url}/api/health`);
  return { child, url, dataDir: from.dataDir, env, startSeconds: (performance.now() - t0) / 1000 };
}

/** The service's RSS and its PostgreSQL's PSS, now. */
function memoryOf(service: Service): Memory {
  return { serviceMiB: rssMiB(service.child.pid), postgres: postgresMemory(service.dataDir) };
}

async function checkedGet(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

async function startBaseline() {
  const port = await freeLoopbackPort();
  const child = launch([join(ROOT, 'bench/baseline.ts')], { PATH: process.env.PATH ?? '', PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(child, `${url}/`);
  return { child, url };
}

/** `@fastify/static` serving `root` (bench/static.ts), the download yardstick. */
async function startStatic(root: string) {
  const port = await freeLoopbackPort();
  const child = launch([join(ROOT, 'bench/static.ts')], {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    STATIC_ROOT: root,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(child, `${url}/ready`);
  return { child, url };
}

/** oidc-provider (bench/oauth.ts run as a script) with `env` naming its client. */
async function startOidcProvider(env: Record<string, string>) {
  const port = await freeLoopbackPort();
  const child = launch([OIDC_PROVIDER_SCRIPT], {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    PORT: String(port),
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(child, `${url}/.well-known/openid-configuration`);
  return { child, url };
}

const harness: Harness = { measure, signIn, stop, startOidcProvider };

/** A bench script (a yardstick server) in a child process, on a free port given as PORT. */
async function startScript(script: string, env: Record<string, string>, readyPath: string) {
  const port = await freeLoopbackPort();
  const child = launch([script], { PATH: process.env.PATH ?? '', PORT: String(port), ...env });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(child, url + readyPath);
  return { child, url };
}

const reportHarness: ReportHarness = { startService, startScript, stop, signIn };
const SETTINGS = { connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS, measureSeconds: MEASURE_SECONDS };

/** Children run on this same Node binary (npm puts the pinned Node 24 first). */
function launch(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code, signal) => {
    children.delete(child);
    if (code !== 0 && signal !== 'SIGTERM' && code !== null)
      console.error(`child ${args[0]} exited ${code}:\n${output}`);
  });
  children.add(child);
  return child;
}

/** Polls `url` every 20 ms (start times are measured with it) until it answers 2xx. */
async function waitReady(child: ChildProcess, url: string) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${url} was not ready within 120 s`);
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
// autocannon's histogram has millisecond resolution: 0 means under a millisecond
const ms = (n: number) => (n < 1 ? '<1' : fmt(n));
const valid = (...measures: Measure[]) => measures.every((m) => m.non2xx === 0 && m.errors === 0);
const reqs = (m: Measure) => ({ text: `${fmt(m.reqPerSec)} req/s`, n: m.reqPerSec });

/** Each request scenario with a yardstick ÷ it; the user list's p99 too. */
function requestTargets(rows: Row[]): Target[] {
  return rows.flatMap((r) => {
    if (!r.yardstick || r.goal === undefined) return [];
    const ratio = ratioTarget(
      `${r.scenario} vs ${r.yardstick.name}`,
      reqs(r),
      reqs(r.yardstick),
      r.goal,
      valid(r, r.yardstick),
    );
    if (!r.scenario.startsWith('GET /api/users')) return [ratio];
    const p99 = limitTarget(`${r.scenario}: p99 at ${CONNECTIONS} connections`, r.p99, 'ms', GOALS.usersP99Ms, {
      strict: true,
      valid: valid(r),
    });
    return [ratio, p99];
  });
}

function lifecycleTargets(l: Lifecycle): Target[] {
  const pg = l.ready.postgres;
  return [
    limitTarget(
      'first start: spawn → /api/health 200 (initdb, migrations, seed)',
      l.firstStartS,
      's',
      GOALS.firstStartS,
      { digits: 1 },
    ),
    limitTarget('later start on the same DATA_DIR: spawn → /api/health 200', l.laterStartS, 's', GOALS.laterStartS, {
      digits: 1,
    }),
    limitTarget('service RSS when ready (later start, before load)', l.ready.serviceMiB, 'MiB', GOALS.serviceRssMiB),
    limitTarget(
      `PostgreSQL PSS when ready (postmaster + ${pg ? pg.processes - 1 : '?'} children)`,
      pg?.pssMiB ?? Number.NaN,
      'MiB',
      GOALS.postgresPssMiB,
      { valid: pg !== null },
    ),
  ];
}

function fileTargets(rows: FileRow[]): Target[] {
  return rows.flatMap((r) =>
    r.baseline !== null && r.goal !== undefined
      ? [
          ratioTarget(
            r.scenario,
            { text: `${fmt(r.value)} ${r.unit}`, n: r.value },
            { text: `${fmt(r.baseline)} ${r.unit}`, n: r.baseline },
            r.goal,
          ),
        ]
      : [],
  );
}

function render(
  rows: Row[],
  bareReqPerSec: number,
  fileRows: FileRow[],
  l: Lifecycle,
  captures: Capture[],
  targets: Target[],
  notes: string[],
): string {
  const cpus = os.cpus();
  const targetOf = (name: string) => targets.find((t) => t.name === name);
  const memory = (m: Memory) =>
    m.postgres
      ? `service ${fmt(m.serviceMiB)} MiB RSS; PostgreSQL ${fmt(m.postgres.pssMiB)} MiB PSS (${m.postgres.processes} processes)`
      : `service ${fmt(m.serviceMiB)} MiB RSS; PostgreSQL: no postmaster.pid`;
  const lines = [
    '# Atrium benchmark',
    '',
    `The service as a newcomer runs it: no DATABASE_URL, so its embedded PostgreSQL in a fresh DATA_DIR. ` +
      `${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ${MEASURE_SECONDS} s measured per scenario; ` +
      'load generator (autocannon) on the same machine. Each target against its yardstick of the same run.',
    '',
    '## Targets',
    '',
    ...targetTable(targets, table),
    '',
    '## Requests',
    '',
    'Ratio to bare = req/s ÷ bare Fastify (one route, no database). Yardstick = bare Fastify + pg ' +
      "(bench/baseline-pg.ts): the same SQL statements the service sends for the scenario (below), through a `pg` pool of the service's default size, " +
      'to the same PostgreSQL server and database in the same run, measured right before the scenario; ratio to yardstick = our ' +
      "overhead over the database's limit.",
    '',
    ...table(
      ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'ratio to bare', 'yardstick req/s', 'ratio to yardstick', 'target'],
      rows.map((r) => {
        const ratio = r.yardstick ? targetOf(`${r.scenario} vs ${r.yardstick.name}`) : undefined;
        const p99 = targetOf(`${r.scenario}: p99 at ${CONNECTIONS} connections`);
        return [
          r.scenario,
          fmt(r.reqPerSec),
          ms(r.p50),
          ms(r.p99),
          fmt(r.reqPerSec / bareReqPerSec, 3),
          r.yardstick ? fmt(r.yardstick.reqPerSec) : '—',
          r.yardstick ? fmt(r.reqPerSec / r.yardstick.reqPerSec, 3) : '—',
          [ratio, p99]
            .filter((t) => t !== undefined)
            .map((t) => (t === p99 ? `p99 ${verdict(t)}` : verdict(t)))
            .join('; ') || '—',
        ];
      }),
      1,
    ),
    '',
    ...captures.map(
      (c) =>
        `- SQL per ${c.scenario} request in this run (\`log_statement = all\` on the server, 20 requests): ` +
        `${c.statements.map((t) => `\`${t.length > 90 ? `${t.slice(0, 90)}…` : t}\``).join(', ') || 'none captured'} — ` +
        (c.same
          ? 'the statements of the yardstick'
          : '**not the statements of the yardstick** (bench/yardstick-sql.ts): its ratio is not against the same SQL'),
    ),
    '- The bearer check needs no SQL while the principal is cached (60 s per session); on a miss it sends 3 ' +
      'statements (session, user, last-activity touch), and the yardstick does the same once per 60 s.',
    '',
    '## Start and memory',
    '',
    'Start = spawn of `node packages/server/src/main.ts` → first 200 from `GET /api/health` (polled every 20 ms). ' +
      'Service: VmRSS of its process. PostgreSQL: PSS (`/proc/<pid>/smaps_rollup`) summed over the postmaster ' +
      '(`DATA_DIR/pg/postmaster.pid`) and every process below it; PSS counts shared pages once in all.',
    '',
    ...table(
      ['measurement', 'value', 'target'],
      [
        ...lifecycleTargets(l).map((t) => [t.name, t.measured, verdict(t)]),
        ['when ready after the first start', memory(l.first), '—'],
        ['at the end of the run (after the file and OAuth scenarios)', memory(l.end), '—'],
      ],
      1,
    ),
    '',
    '## Files',
    '',
    `One ${FILE_SIZE / MiB} MiB file of random bytes per run. Uploads: ratio = MiB/s ÷ streaming the same bytes ` +
      "into the service's DATA_DIR with an fsync (the disk row). Downloads: ratio = " +
      '÷ `@fastify/static` serving the same file from disk. RSS: VmRSS sampled every 100 ms ' +
      `during the scenario, at its start → its peak. Chunks of ${CHUNK_SIZE / MiB} MiB, sent one after another.`,
    '',
    ...table(
      ['scenario', 'result', 'yardstick', 'ratio', 'target', 'RSS start → peak'],
      fileRows.map((r) => {
        const t = targetOf(r.scenario);
        return [
          r.scenario,
          `${fmt(r.value)} ${r.unit}`,
          r.baseline === null ? '—' : `${fmt(r.baseline)} ${r.unit}`,
          r.baseline === null ? '—' : fmt(r.value / r.baseline, 3),
          t ? verdict(t) : '—',
          r.rss ? `${r.rss.process} ${fmt(r.rss.startMiB)} → ${fmt(r.rss.peakMiB)} MiB` : '—',
        ];
      }),
      1,
    ),
    '',
    `- Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown'}), ${fmt(os.totalmem() / 2 ** 30, 1)} GiB RAM, ${os.platform()} ${os.release()}`,
    `- Node ${process.version}`,
    `- Date: ${new Date().toISOString()}`,
    ...notes.map((n) => `- Note: ${n}`),
    '',
  ];
  return lines.join('\n');
}

/** A Markdown table padded so it reads as well in a terminal; the columns after the text ones right-aligned. */
function table(head: string[], body: string[][], textColumns = 2): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i < textColumns ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (i < textColumns ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`;
  return [line(head), rule, ...body.map(line)];
}

const shutdown = () => {
  for (const c of children) c.kill('SIGKILL');
  // A killed service leaves its PostgreSQL running: a fast shutdown of each postmaster still there.
  for (const dir of dataDirs) {
    try {
      process.kill(Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGINT');
    } catch {
      // stopped cleanly already (no pid file)
    }
  }
};
process.on('SIGINT', () => {
  shutdown();
  process.exit(130);
});

main().catch((err) => {
  console.error('bench failed:', err instanceof Error ? err.message : err);
  shutdown();
  process.exit(1);
});
