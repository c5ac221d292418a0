import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { freeLoopbackPort } from '../packages/server/src/platform/net/free-port.ts';
import { serviceArgs, stop } from './service-command.ts';

/**
 * The service's memory (issue: ready RSS ≤ 200 MiB; flat ≤ 350 MiB under sustained load).
 * Standalone: `node bench/memory-load.ts`. Starts the service on a fresh PostgreSQL database
 * (created on MEMORY_DATABASE_URL's server and dropped afterwards) in production mode, samples
 * its resident set once it is ready and idle, then runs a mixed load at a fixed total rate —
 * user lists, /api/auth/me and the in-app unread count with a bearer token, anonymous front-end
 * error reports — sampling the resident set every few seconds, and again after an idle pause.
 *
 * Environment (all optional):
 *   MEMORY_DATABASE_URL   server to create the database on (default postgres://postgres@127.0.0.1:5432/postgres)
 *   MEMORY_LOAD_SECONDS   load duration (default 240)
 *   MEMORY_RATE           total requests per second (default 750)
 *   MEMORY_CONNECTIONS    autocannon connections (default 10)
 *   MEMORY_NODE_ARGS      extra node flags for the service, space separated (e.g. --heap-snapshot-signal=SIGUSR2)
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATABASE_URL = process.env.MEMORY_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const LOAD_SECONDS = Number(process.env.MEMORY_LOAD_SECONDS || 240);
const RATE = Number(process.env.MEMORY_RATE || 750);
const CONNECTIONS = Number(process.env.MEMORY_CONNECTIONS || 10);
const NODE_ARGS = (process.env.MEMORY_NODE_ARGS || '').split(' ').filter(Boolean);
const SAMPLE_SECONDS = 5;
/** after start: let start-up garbage be collected and timers settle before the ready sample */
const SETTLE_SECONDS = 10;
const IDLE_SECONDS = 30;
const ADMIN_PASSWORD = 'memory-bench-admin-password';
/** the front-end report route allows 120 reports per client IP a minute: spread over many */
const ADDRESSES = 16_384;

type Sample = { at: number; rssMiB: number; anonMiB: number; fileMiB: number };

function sample(pid: number, at: number): Sample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024;
  return { at, rssMiB: kb('VmRSS'), anonMiB: kb('RssAnon'), fileMiB: kb('RssFile') + kb('RssShmem') };
}

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const mib = (n: number) => n.toFixed(0);

async function main() {
  const db = await createDatabase(DATABASE_URL);
  const dataDir = mkdtempSync(join(os.tmpdir(), 'atrium-memory-'));
  let child: ChildProcess | null = null;
  try {
    const port = await freeLoopbackPort();
    child = spawn(process.execPath, [...NODE_ARGS, ...serviceArgs()], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        DATA_DIR: dataDir,
        DATABASE_URL: db.url,
        JWT_SECRET: randomBytes(48).toString('base64url'),
        SECRET_KEYS: `bench:${randomBytes(32).toString('base64')}`,
        SEED_ADMIN_PASSWORD: ADMIN_PASSWORD,
        CAPTCHA_ENABLED: 'false',
        TRUST_PROXY: 'true', // reports name their client in X-Forwarded-For (see ADDRESSES)
        LOG_LEVEL: 'warn',
      },
    });
    const pid = child.pid as number;
    const base = `http://127.0.0.1:${port}`;
    const started = Date.now();
    await waitReady(child, `${base}/api/health`);
    console.log(`ready after ${((Date.now() - started) / 1000).toFixed(1)} s; settling ${SETTLE_SECONDS} s`);
    await sleep(SETTLE_SECONDS);
    const ready = sample(pid, 0);
    console.log(
      `ready RSS ${mib(ready.rssMiB)} MiB (anon ${mib(ready.anonMiB)}, file ${mib(ready.fileMiB)}), load ${os.loadavg()[0]?.toFixed(2)}`,
    );

    const token = await signIn(base);
    const samples: Sample[] = [];
    const t0 = Date.now();
    const timer = setInterval(() => {
      const s = sample(pid, (Date.now() - t0) / 1000);
      samples.push(s);
      console.log(
        `  t=${s.at.toFixed(0).padStart(4)} s  RSS ${mib(s.rssMiB)} MiB  load ${os.loadavg()[0]?.toFixed(2)}`,
      );
    }, SAMPLE_SECONDS * 1000);
    const result = await autocannon({
      url: base,
      connections: CONNECTIONS,
      overallRate: RATE,
      duration: LOAD_SECONDS,
      requests: mixedRequests(token),
    });
    clearInterval(timer);
    const loadAvg = os.loadavg()[0] ?? 0;
    await sleep(IDLE_SECONDS);
    const idle = sample(pid, (Date.now() - t0) / 1000);

    const peak = Math.max(...samples.map((s) => s.rssMiB));
    const lastMinute = samples.filter((s) => s.at >= LOAD_SECONDS - 60).map((s) => s.rssMiB);
    const statuses = Object.entries(result.statusCodeStats ?? {})
      .map(([code, v]) => `${code}: ${(v as { count: number }).count}`)
      .join(', ');
    console.log(
      [
        '',
        `| ready RSS | peak under load | last minute of load (min–max) | after ${IDLE_SECONDS} s idle | req/s | p99 ms | statuses | errors |`,
        '|---|---|---|---|---|---|---|---|',
        `| ${mib(ready.rssMiB)} MiB | ${mib(peak)} MiB | ${mib(Math.min(...lastMinute))}–${mib(Math.max(...lastMinute))} MiB | ${mib(idle.rssMiB)} MiB | ${result.requests.average.toFixed(0)} | ${result.latency.p99} | ${statuses} | ${result.errors + result.timeouts} |`,
        '',
        `${LOAD_SECONDS} s at ${RATE} req/s over ${CONNECTIONS} connections, Node ${process.version}, ` +
          `1-minute load average at the end of the load ${loadAvg.toFixed(2)}.`,
      ].join('\n'),
    );
  } finally {
    if (child) await stop(child);
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The mix, in equal parts: the user list, /api/auth/me, the unread count, a front-end error report. */
function mixedRequests(token: string): autocannon.Request[] {
  const auth = { authorization: `Bearer ${token}` };
  let n = 0;
  return [
    { method: 'GET', path: '/api/users?page=1&pageSize=20', headers: auth },
    { method: 'GET', path: '/api/auth/me', headers: auth },
    { method: 'GET', path: '/api/in-app-messages/unread-count', headers: auth },
    {
      method: 'POST',
      path: '/api/frontend-errors',
      setupRequest: (req) => {
        const i = n++;
        const a = i % ADDRESSES;
        const message = `TypeError: v${i % 200} is undefined`;
        return {
          ...req,
          headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${a >> 8}.${a & 255}.1` },
          body: JSON.stringify({
            type: 'js_error',
            message,
            stack: `${message}\n    at render (https://shop.example.com/app.min.js:1:${2000 + (i % 200)})`,
            pageUrl: 'https://shop.example.com/cart',
            release: '1.0.0',
            sessionId: `memory-session-${i % 1000}`,
          }),
        };
      },
    },
  ];
}

async function signIn(base: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { accessToken: string } }).data.accessToken;
}

async function waitReady(child: ChildProcess, url: string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(0.2);
  }
  throw new Error(`${url} was not ready within 60 s`);
}

async function createDatabase(server: string) {
  const name = `atrium_memory_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(server);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

await main();
