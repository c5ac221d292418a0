import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeLoopbackPort } from '../../src/platform/net/free-port.ts';

/**
 * The service as `npm start` runs it (src/main.ts in a process of its own), and the traffic the
 * fault tests drive through an outage: a sign-in, a list and a write per round, each timed.
 */
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
export const PASSWORD = 'Faults#Survived2026';

export type Service = { child: ChildProcess; base: string; output: () => string; exited: Promise<number | null> };

export async function startService(env: Record<string, string>): Promise<Service> {
  const port = await freeLoopbackPort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      SEED_ADMIN_PASSWORD: PASSWORD,
      CAPTCHA_ENABLED: 'false',
      // a sign-in per round for a minute: above the default limits of 30 per address and 10 per account
      LOGIN_IP_LIMIT_PER_MINUTE: '100000',
      LOGIN_ACCOUNT_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watched(child, port);
}

/** A started service process: what it printed so far, and its exit code once it exits. */
export function watched(child: ChildProcess, port: number): Service {
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, base: `http://127.0.0.1:${port}`, output: () => out, exited };
}

export async function ready(s: Service): Promise<void> {
  await until(
    'the service is running',
    () => {
      if (s.child.exitCode !== null) throw new Error(`the service exited (${s.child.exitCode}):\n${s.output()}`);
      return s.output().includes('Atrium is running at');
    },
    90_000,
  );
}

/** Stops the service if a failed test left it running. */
export async function stopService(s: Service | undefined): Promise<void> {
  if (!s || s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill('SIGTERM');
  await s.exited;
}

export async function until(what: string, done: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The pid of the PostgreSQL server whose data directory is `pgDir`. */
export function postmasterPid(pgDir: string): number {
  return Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Running, not a zombie (a server whose parent does not reap it stays one after it died). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

/** One timed request: its status (0: no answer within the test's own limit) and its error key. */
export type Sample = { what: string; status: number; ms: number; error?: string; retryAfter?: string | null };

/** Past this a request is a hang, whatever it answered. */
export const BOUND_MS = 5_000;

async function timed(what: string, path: string, init: RequestInit = {}): Promise<{ sample: Sample; body: unknown }> {
  const started = Date.now();
  try {
    // well past the bound: a hang is measured, not waited for forever
    const res = await fetch(path, { ...init, signal: AbortSignal.timeout(3 * BOUND_MS) });
    const body = (await res.json().catch(() => null)) as { error?: string } | null;
    const sample: Sample = { what, status: res.status, ms: Date.now() - started };
    if (res.status >= 400) {
      sample.error = body?.error;
      sample.retryAfter = res.headers.get('retry-after');
    }
    return { sample, body };
  } catch (err) {
    return { sample: { what, status: 0, ms: Date.now() - started, error: (err as Error).message }, body: null };
  }
}

export type Credentials = { username: string; password: string; tenantCode?: string };

export async function signIn(
  s: Service,
  who: Credentials = { username: 'admin', password: PASSWORD },
): Promise<string> {
  const { sample, body } = await timed('sign-in', `${s.base}/api/auth/login`, jsonPost(who));
  if (sample.status !== 200) throw new Error(`sign-in answered ${sample.status} ${sample.error ?? ''}`);
  return (body as { data: { accessToken: string } }).data.accessToken;
}

function jsonPost(body: unknown, token?: string): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  };
}

/** A write the caller can look for afterwards: a dictionary type with a code of its own. */
export async function writeOne(s: Service, token: string): Promise<{ sample: Sample; code: string }> {
  const code = `fault_${randomBytes(5).toString('hex')}`;
  const { sample } = await timed('write', `${s.base}/api/dict-types`, jsonPost({ code, name: code }, token));
  return { sample, code };
}

/**
 * One round of traffic: a sign-in, a list and a write. Answers the samples, and the code of the
 * write if it was acknowledged (2xx): that row must survive whatever happens next.
 */
export async function round(s: Service, token: string): Promise<{ samples: Sample[]; acknowledged: string | null }> {
  const login = await timed('sign-in', `${s.base}/api/auth/login`, jsonPost({ username: 'admin', password: PASSWORD }));
  const list = await timed('list', `${s.base}/api/dict-types?page=1&pageSize=20`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const write = await writeOne(s, token);
  const ok = write.sample.status >= 200 && write.sample.status < 300;
  return { samples: [login.sample, list.sample, write.sample], acknowledged: ok ? write.code : null };
}

/**
 * What no request may do, outage or not: answer a 500 (or any 5xx but a 503), no answer at all,
 * take longer than the bound, or answer a 503 that is not the database's with a Retry-After.
 */
export function trafficProblems(samples: Sample[]): string[] {
  const problems: string[] = [];
  for (const s of samples) {
    const where = `${s.what} answered ${s.status || 'nothing'} after ${s.ms} ms`;
    if (s.status === 0) problems.push(`${where}: ${s.error}`);
    else if (s.status >= 500 && s.status !== 503) problems.push(`${where} (${s.error})`);
    else if (s.status === 503 && (s.error !== 'ops.database_unavailable' || !Number(s.retryAfter)))
      problems.push(`${where}: ${s.error}, Retry-After ${s.retryAfter}`);
    if (s.ms > BOUND_MS) problems.push(`${where}: longer than ${BOUND_MS} ms`);
  }
  return problems;
}

/** Every dictionary type code, all pages. */
export async function dictCodes(s: Service, token: string): Promise<Set<string>> {
  const codes = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await fetch(`${s.base}/api/dict-types?page=${page}&pageSize=100`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200) throw new Error(`listing dictionary types answered ${res.status}`);
    const { data } = (await res.json()) as { data: { list: { code: string }[] } };
    for (const d of data.list) codes.add(d.code);
    if (data.list.length < 100) return codes;
  }
}

/** Rounds of traffic until `done` says so after a round; every sample and acknowledged write. */
export async function driveTraffic(
  s: Service,
  token: string,
  opts: { done: (samples: Sample[]) => boolean; deadlineMs: number; what: string },
): Promise<{ samples: Sample[]; acknowledged: string[] }> {
  const samples: Sample[] = [];
  const acknowledged: string[] = [];
  const deadline = Date.now() + opts.deadlineMs;
  for (;;) {
    if (s.child.exitCode !== null) throw new Error(`the service exited (${s.child.exitCode}):\n${s.output()}`);
    const r = await round(s, token);
    samples.push(...r.samples);
    if (r.acknowledged) acknowledged.push(r.acknowledged);
    if (opts.done(samples)) return { samples, acknowledged };
    if (Date.now() > deadline) {
      const seen = samples.map((x) => `${x.what} ${x.status}`).slice(-12);
      throw new Error(`${opts.what}: not within ${opts.deadlineMs / 1000} s; last answers: ${seen.join(', ')}`);
    }
    await new Promise((r) => setTimeout(r, 100)); // pacing, not a proof of anything
  }
}

/** The last round answered 2xx to all three requests. */
export const servedAgain = (samples: Sample[]) =>
  samples.length >= 3 && samples.slice(-3).every((x) => x.status >= 200 && x.status < 300);
