import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  CHUNK_SIZE,
  createTestFile,
  type DownloadResult,
  downloads,
  FILE_SIZE,
  type FileRow,
  fileScenarios,
  MiB,
  staticRows,
  type TestFile,
} from './files.ts';
import {
  frontendErrorRows,
  frontendErrorSection,
  frontendErrorsAloneNote,
  type ReportHarness,
} from './frontend-errors.ts';
import { type NotificationRow, notificationScenario, notificationSection } from './notifications.ts';
import {
  aloneNote,
  atriumRows,
  type Harness,
  type OAuthRow,
  OIDC_PROVIDER_SCRIPT,
  oauthSection,
  oidcProviderRows,
} from './oauth.ts';

/**
 * `npm run bench`: the service (PGlite, and PostgreSQL when BENCH_DATABASE_URL is set) against a
 * bare Fastify baseline, same machine, same Node, same load; then the file scenarios (bench/files.ts)
 * against the same disk and `@fastify/static`; then the OAuth scenario (bench/oauth.ts) against
 * oidc-provider; then the notification scenario (bench/notifications.ts). Writes
 * bench/results/latest.md. Then the front-end error scenario (bench/frontend-errors.ts).
 * `BENCH_ONLY=notifications`, `oauth` or `frontend-errors` runs that scenario alone and replaces only
 * its section of latest.md.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const MEASURE_SECONDS = 8;
const ADMIN_PASSWORD = `Bench#${randomBytes(6).toString('hex')}`;
const ONLY = process.env.BENCH_ONLY || null;
const LATEST = join(ROOT, 'bench/results/latest.md');

type Measure = { reqPerSec: number; p50: number; p99: number; non2xx: number; errors: number };
type Row = { scenario: string; database: string } & Measure;
type Scenario = { name: string; method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string };

const children = new Set<ChildProcess>();

async function main() {
  if (ONLY !== null && ONLY !== 'notifications' && ONLY !== 'oauth' && ONLY !== 'frontend-errors')
    throw new Error(
      `BENCH_ONLY=${ONLY}: the scenarios that run alone are "notifications", "oauth" and "frontend-errors"`,
    );
  if (ONLY === 'notifications') return notificationsOnly();
  if (ONLY === 'oauth') return oauthOnly();
  if (ONLY === 'frontend-errors') return frontendErrorsOnly();
  const loadAtStart = os.loadavg()[0] ?? 0;
  const rows: Row[] = [];
  const fileRows: FileRow[] = [];
  const rss: string[] = [];
  const notes: string[] = [];

  const baseline = await startBaseline();
  const bare = await measure(baseline.url, { name: 'bare Fastify, GET / → {ok:true}', method: 'GET', path: '/' });
  rows.push({ scenario: 'bare Fastify, GET / → {ok:true}', database: '—', ...bare });
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

  const targets: { database: string; url: string | null }[] = [{ database: 'PGlite', url: null }];
  const pgBase = process.env.BENCH_DATABASE_URL;
  let pgDb: { url: string; drop: () => Promise<void> } | null = null;
  if (pgBase) {
    pgDb = await createDatabase(pgBase);
    targets.push({ database: 'PostgreSQL', url: pgDb.url });
  }

  try {
    for (const target of targets) {
      const service = await startService(target.url);
      const idle = vmRss(service.child.pid);
      try {
        for (const scenario of await scenarios(service.url)) {
          if (scenario.note) notes.push(scenario.note);
          rows.push({ scenario: scenario.name, database: target.database, ...(await measure(service.url, scenario)) });
        }
        rss.push(`${target.database}: ${vmRss(service.child.pid)} (${idle} when ready, before load)`);
        if (statSync(service.dataDir).dev !== statSync(workDir).dev)
          notes.push(`${target.database}: DATA_DIR and the test file are on different filesystems`);
        const token = await signIn(service.url);
        const pid = service.child.pid;
        for (const r of await fileScenarios({ ...service, pid }, target.database, token, file, yardstick)) {
          if (r.note) notes.push(r.note);
          fileRows.push(r);
        }
        oauthRows.push(...(await atriumRows(harness, target.database, service)));
      } finally {
        await stop(service.child);
        rmSync(service.dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await pgDb?.drop();
    rmSync(workDir, { recursive: true, force: true });
  }
  // after every service child has stopped: the in-process scenario has the machine to itself
  const notificationRows = await notificationRuns(pgBase);
  const reportRows = await frontendErrorRows(reportHarness, pgBase);

  const failed = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
  for (const r of failed)
    notes.push(`${r.scenario} (${r.database}): ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  // Evidence of other work on the machine; the average trails by about a minute, the bench adds about 2.
  notes.unshift(
    `1-minute load average ${loadAtStart.toFixed(2)} before the run, ${(os.loadavg()[0] ?? 0).toFixed(2)} at its end`,
  );
  const report = [
    render(rows, bare.reqPerSec, fileRows, rss, notes),
    oauthSection(oauthRows, bare, SETTINGS, table).join('\n'),
    notificationSection(notificationRows, table).join('\n'),
    frontendErrorSection(reportRows, table).join('\n'),
  ].join('\n');
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(LATEST, report);
  console.log(report);
}

/** The notification scenario on PGlite, then on a fresh PostgreSQL database when BENCH_DATABASE_URL is set. */
async function notificationRuns(pgBase: string | undefined): Promise<NotificationRow[]> {
  const rows = [await notificationScenario({ database: 'PGlite', url: null })];
  if (pgBase) {
    const db = await createDatabase(pgBase);
    try {
      rows.push(await notificationScenario({ database: 'PostgreSQL', url: db.url }));
    } finally {
      await db.drop();
    }
  }
  return rows;
}

/** BENCH_ONLY=notifications: replaces the Notifications section of latest.md, keeps the rest. */
async function notificationsOnly() {
  const loadAtStart = os.loadavg()[0] ?? 0;
  const rows = await notificationRuns(process.env.BENCH_DATABASE_URL);
  const note =
    `run alone (BENCH_ONLY=notifications) on ${new Date().toISOString()}, Node ${process.version}, ` +
    `${os.cpus().length} cores; 1-minute load average ${loadAtStart.toFixed(2)} before, ` +
    `${(os.loadavg()[0] ?? 0).toFixed(2)} after. The sections above are from the last full run`;
  const section = notificationSection(rows, table, [note]).join('\n');
  const previous = existsSync(LATEST) ? readFileSync(LATEST, 'utf8') : '# Atrium benchmark\n';
  const kept = previous.replace(/\n## Notifications\n[\s\S]*?(?=\n## |$)/, '\n').replace(/\n*$/, '\n');
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(LATEST, `${kept}\n${section}`);
  console.log(section);
}

/**
 * BENCH_ONLY=oauth: bare Fastify and oidc-provider, each alone, then the service on PGlite and on a
 * fresh PostgreSQL database when BENCH_DATABASE_URL is set; replaces the OAuth section of latest.md.
 */
async function oauthOnly() {
  const loadAtStart = os.loadavg()[0] ?? 0;
  const baseline = await startBaseline();
  const bare = await measure(baseline.url, { name: 'bare Fastify', method: 'GET', path: '/' });
  await stop(baseline.child);
  const rows = await oidcProviderRows(harness);
  const pgBase = process.env.BENCH_DATABASE_URL;
  for (const database of pgBase ? ['PGlite', 'PostgreSQL'] : ['PGlite']) {
    const db = database === 'PostgreSQL' && pgBase ? await createDatabase(pgBase) : null;
    try {
      const service = await startService(db?.url ?? null);
      try {
        rows.push(...(await atriumRows(harness, database, service)));
      } finally {
        await stop(service.child);
        rmSync(service.dataDir, { recursive: true, force: true });
      }
    } finally {
      await db?.drop();
    }
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
  const rows = await frontendErrorRows(reportHarness, process.env.BENCH_DATABASE_URL);
  const section = frontendErrorSection(rows, table, [frontendErrorsAloneNote(loadAtStart)]).join('\n');
  const previous = existsSync(LATEST) ? readFileSync(LATEST, 'utf8') : '# Atrium benchmark\n';
  const existing = /\n## Front-end errors\n[\s\S]*?(?=\n## |$)/;
  const next = existing.test(previous)
    ? previous.replace(existing, `\n${section}`)
    : `${previous.replace(/\n*$/, '\n')}\n${section}`;
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(LATEST, next);
  console.log(section);
}

/** The three scenarios; the user list falls back to /api/auth/me where that route does not exist. */
async function scenarios(base: string): Promise<(Scenario & { note?: string })[]> {
  const login = JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD });
  const json = { 'content-type': 'application/json' };
  const token = await signIn(base);
  const bearer = { authorization: `Bearer ${token}` };

  let list: Scenario & { note?: string } = {
    name: 'GET /api/users?page=1&pageSize=20 (bearer)',
    method: 'GET',
    path: '/api/users?page=1&pageSize=20',
    headers: bearer,
  };
  const probe = await fetch(base + list.path, { headers: bearer });
  if (probe.status === 404) {
    list = {
      name: 'GET /api/auth/me (bearer; stands in for /api/users, not served)',
      method: 'GET',
      path: '/api/auth/me',
      headers: bearer,
      note: '/api/users answered 404 in this build: the signed-in read scenario used /api/auth/me instead.',
    };
  } else if (probe.status !== 200) {
    throw new Error(`GET /api/users answered ${probe.status}: ${await probe.text()}`);
  }
  return [
    { name: 'GET /api/health', method: 'GET', path: '/api/health' },
    { name: 'POST /api/auth/login', method: 'POST', path: '/api/auth/login', headers: json, body: login },
    list,
  ];
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

async function startService(databaseUrl: string | null, extraEnv: Record<string, string> = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(os.tmpdir(), 'atrium-bench-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(48).toString('base64url'),
    SECRET_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    SEED_ADMIN_PASSWORD: ADMIN_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOGIN_IP_LIMIT_PER_MINUTE: '100000',
    LOGIN_ACCOUNT_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'warn',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...extraEnv,
  };
  const child = launch([join(ROOT, 'packages/server/src/main.ts')], env);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(child, `${url}/api/health`);
  return { child, url, dataDir };
}

async function startBaseline() {
  const port = await freePort();
  const child = launch([join(ROOT, 'bench/baseline.ts')], { PATH: process.env.PATH ?? '', PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(child, `${url}/`);
  return { child, url };
}

/** `@fastify/static` serving `root` (bench/static.ts), the download yardstick. */
async function startStatic(root: string) {
  const port = await freePort();
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
  const port = await freePort();
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
  const port = await freePort();
  const child = launch([script], { PATH: process.env.PATH ?? '', PORT: String(port), ...env });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(child, url + readyPath);
  return { child, url };
}

const reportHarness: ReportHarness = { startService, startScript, stop, signIn, createDatabase };
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

async function waitReady(child: ChildProcess, url: string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} was not ready within 60 s`);
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A fresh database on the benchmark server, dropped afterwards. */
async function createDatabase(base: string) {
  const name = `atrium_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function vmRss(pid: number | undefined): string {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? `${(Number(line[1]) / 1024).toFixed(0)} MiB` : 'n/a';
  } catch {
    return 'n/a (no /proc)';
  }
}

function render(rows: Row[], bareReqPerSec: number, fileRows: FileRow[], rss: string[], notes: string[]): string {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  // autocannon's histogram has millisecond resolution: 0 means under a millisecond
  const ms = (n: number) => (n < 1 ? '<1' : fmt(n));
  const cpus = os.cpus();
  const lines = [
    '# Atrium benchmark',
    '',
    `${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ${MEASURE_SECONDS} s measured per scenario; ` +
      'load generator (autocannon) on the same machine. Ratio = scenario req/s ÷ bare Fastify req/s.',
    '',
    ...table(
      ['scenario', 'database', 'req/s', 'p50 ms', 'p99 ms', 'ratio to bare'],
      rows.map((r) => [
        r.scenario,
        r.database,
        fmt(r.reqPerSec),
        ms(r.p50),
        ms(r.p99),
        fmt(r.reqPerSec / bareReqPerSec, 3),
      ]),
    ),
    '',
    `- Service RSS after the runs: ${rss.join('; ')}`,
    '',
    '## Files',
    '',
    `One ${FILE_SIZE / MiB} MiB file of random bytes per run. Uploads: ratio = MiB/s ÷ streaming the same bytes ` +
      "into the service's DATA_DIR with an fsync (the disk row of the same database). Downloads: ratio = " +
      '÷ `@fastify/static` serving the same file from disk (the — rows). RSS: VmRSS sampled every 100 ms ' +
      `during the scenario, at its start → its peak. Chunks of ${CHUNK_SIZE / MiB} MiB, sent one after another.`,
    '',
    ...table(
      ['scenario', 'database', 'result', 'yardstick', 'ratio', 'RSS start → peak'],
      fileRows.map((r) => [
        r.scenario,
        r.database,
        `${fmt(r.value)} ${r.unit}`,
        r.baseline === null ? '—' : `${fmt(r.baseline)} ${r.unit}`,
        r.baseline === null ? '—' : fmt(r.value / r.baseline, 3),
        r.rss ? `${r.rss.process} ${fmt(r.rss.startMiB)} → ${fmt(r.rss.peakMiB)} MiB` : '—',
      ]),
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
