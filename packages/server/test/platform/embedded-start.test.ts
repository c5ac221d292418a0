import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../src/platform/net/free-port.ts';
import { alive, type Service, watched } from '../faults/service-process.ts';

/**
 * The newcomer's path, end to end: `npm start` with no DATABASE_URL runs an embedded PostgreSQL
 * under DATA_DIR and serves the console `npm ci` built. Real processes, real signals: start, sign
 * in, write, stop, start again, the data is still there; a crash (kill -9) leaves the server
 * running and the next start recovers it.
 */
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../../..', import.meta.url));
const PASSWORD = 'Embedded#Start2026';
const dirs: string[] = [];
const children: ChildProcess[] = [];
const groups: number[] = [];
// A failed test may leave its service running: stop it (and so its server) before the next test.
afterEach(async () => {
  const running = children.splice(0).filter((c) => c.exitCode === null && c.signalCode === null);
  await Promise.all(running.map((c) => new Promise((r) => c.once('exit', r).kill('SIGTERM'))));
  // what an npm start left behind after a failed test: its whole group
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, 'SIGTERM');
    } catch {
      // gone
    }
  }
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type StartOptions = {
  /** `npm start` run from `cwd` (`npm --prefix <repo> start`), as a person or a process manager runs it */
  npm?: { cwd: string };
  env?: Record<string, string>;
};

async function startService(dataDir: string | null, opts: StartOptions = {}): Promise<Service> {
  const port = await freeLoopbackPort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    PORT: String(port),
    SEED_ADMIN_PASSWORD: PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const child = opts.npm
    ? // its own process group, as a process manager starts it: a signal to the npm pid reaches npm alone
      spawn('npm', ['--prefix', REPO, 'start'], {
        env,
        cwd: opts.npm.cwd,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  if (opts.npm && child.pid) groups.push(child.pid);
  return watched(child, port);
}

async function ready(s: Service): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (s.child.exitCode !== null) throw new Error(`the service exited (${s.child.exitCode}):\n${s.output()}`);
    if (s.output().includes('Atrium is running at')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready after 60 s:\n${s.output()}`);
}

async function signIn(s: Service): Promise<string> {
  const res = await fetch(`${s.base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { accessToken: string } }).data.accessToken;
}

function serverPid(dataDir: string): number | null {
  const file = join(dataDir, 'pg', 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : null;
}

/** The live processes of a session (a detached child leads its own): npm, its shell, the service. */
function sessionMembers(sid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // fields after "(comm)": state ppid pgrp session
        return Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.split(' ')[3]) === sid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(what: string, done: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function postJson(s: Service, token: string, path: string, body: unknown) {
  return fetch(`${s.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

async function dictionaryNames(s: Service, token: string): Promise<string[]> {
  const res = await fetch(`${s.base}/api/dict-types?page=1&pageSize=100`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { list: { name: string }[] } };
  return body.data.list.map((d) => d.name);
}

// Real process starts (initdb on the first) take seconds each, more on a loaded machine.
describe('the embedded PostgreSQL default', { timeout: 180_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'atrium-embedded-'));
  dirs.push(dataDir);

  it('starts, keeps data across a clean stop and start, and stops its server with it', async () => {
    const first = await startService(dataDir);
    await ready(first);
    expect(first.output()).toContain(`embedded PostgreSQL in ${dataDir}/pg`);
    // the console too: npm ci built it (the root prepare script), the service serves it at /
    await until('the banner names the console', () => first.output().includes('Console: '), 5_000);
    expect(first.output()).toContain(`Console: ${first.base}/\n`);
    const page = await fetch(`${first.base}/`, { headers: { accept: 'text/html' } });
    expect(page.status, 'GET /: is packages/console/dist built (npm run build -w @atrium/console)?').toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const token = await signIn(first);
    const created = await postJson(first, token, '/api/dict-types', {
      code: 'kept_across_restart',
      name: 'Kept across restart',
    });
    expect(created.status).toBe(201);
    const pid = serverPid(dataDir) as number;
    expect(alive(pid)).toBe(true);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(alive(pid)).toBe(false); // nothing left running
    expect(existsSync(join(dataDir, 'atrium.pid'))).toBe(false);

    const second = await startService(dataDir);
    await ready(second);
    expect(await dictionaryNames(second, await signIn(second))).toContain('Kept across restart');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  });

  it('refuses a second service on the same DATA_DIR, naming the process that holds it', async () => {
    const holder = await startService(dataDir);
    await ready(holder);
    const intruder = await startService(dataDir);
    expect(await intruder.exited).toBe(1);
    expect(intruder.output()).toContain(`in use by another Atrium process (pid ${holder.child.pid}`);
    holder.child.kill('SIGTERM');
    expect(await holder.exited).toBe(0);
  });

  it('recovers after the service is killed (kill -9) without losing committed data', async () => {
    const doomed = await startService(dataDir);
    await ready(doomed);
    const token = await signIn(doomed);
    const created = await postJson(doomed, token, '/api/dict-types', {
      code: 'written_before_crash',
      name: 'Written before crash',
    });
    expect(created.status).toBe(201);
    const orphan = serverPid(dataDir) as number;
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    expect(alive(orphan)).toBe(true); // the database server outlives a killed service

    const next = await startService(dataDir);
    await ready(next);
    expect(next.output()).toContain('left running by an earlier process');
    expect(alive(orphan)).toBe(false);
    expect(await dictionaryNames(next, await signIn(next))).toEqual(
      expect.arrayContaining(['Kept across restart', 'Written before crash']),
    );
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
  });
});

// What `kill $!` after `npm start &`, a process manager or a container runtime does: the signal
// reaches the npm process alone, which passes it to its shell only (stop-requests.ts).
describe('npm start, stopped by a signal to the npm process alone', { timeout: 180_000 }, () => {
  const cwd = mkdtempSync(join(tmpdir(), 'atrium-npm-start-'));
  dirs.push(cwd);
  const dataDir = join(cwd, 'data');

  // SIGKILL: npm killed outright; the service sees its parent gone (stop-requests.ts)
  it.each(['SIGTERM', 'SIGINT', 'SIGKILL'] as const)(
    '%s stops the service and its database, leaving nothing running',
    async (signal) => {
      const s = await startService(null, { npm: { cwd } });
      await ready(s);
      // DATA_DIR's default is relative to where npm start was typed, not to the package it runs
      expect(s.output()).toContain(`embedded PostgreSQL in ${dataDir}/pg`);
      const pid = s.child.pid as number;
      const started = sessionMembers(pid);
      expect(started.length).toBeGreaterThanOrEqual(2); // npm and the service its script execs
      const postmaster = serverPid(dataDir) as number;
      expect(alive(postmaster)).toBe(true);

      s.child.kill(signal);
      await until('every process npm start started has exited', () => started.every((p) => !alive(p)));
      await until('the database server has stopped', () => !alive(postmaster));
      await expect(fetch(`${s.base}/api/health`)).rejects.toThrow();
      expect(existsSync(join(dataDir, 'atrium.pid'))).toBe(false);
    },
  );

  it('a later start with another SEED_ADMIN_PASSWORD says it is ignored and how to set it', async () => {
    const s = await startService(null, { npm: { cwd }, env: { SEED_ADMIN_PASSWORD: 'Another#Pass2026' } });
    await ready(s);
    expect(s.output()).toContain('SEED_ADMIN_PASSWORD is ignored: it is only used at the first start');
    expect(s.output()).toContain('npm run admin -- reset-password');
    s.child.kill('SIGTERM');
    await until('npm start has exited', () => s.child.exitCode !== null || s.child.signalCode !== null);
    // the same password again: nothing to say
    const same = await startService(null, { npm: { cwd } });
    await ready(same);
    expect(same.output()).not.toContain('SEED_ADMIN_PASSWORD is ignored');
    const postmaster = serverPid(dataDir) as number;
    same.child.kill('SIGTERM');
    await until('the database server has stopped', () => !alive(postmaster));
  });
});

describe('a DATA_DIR left by a PGlite version', { timeout: 60_000 }, () => {
  it('stops the start with a message that says how to move the data, and changes nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atrium-pglite-'));
    dirs.push(dataDir);
    mkdirSync(join(dataDir, 'pg'));
    writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '17\n');
    const s = await startService(dataDir);
    expect(await s.exited).toBe(1);
    expect(s.output()).toMatch(/holds a PGlite database made by an earlier Atrium version/);
    expect(s.output()).toContain('docs/operations.md');
    expect(readFileSync(join(dataDir, 'pg', 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(existsSync(join(dataDir, 'pg-password'))).toBe(false);
    expect(existsSync(join(dataDir, 'atrium.pid'))).toBe(false);
  });
});
