import { type ChildProcess, spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { freeLoopbackPort } from '../../src/platform/net/free-port.ts';
import { call } from '../helpers/app.ts';

/**
 * What the fault suite (issue 27) holds every answer to while a dependency is down: a status that
 * is not 500, within BOUND_MS. A hang, not speed, is what the bound catches: the slowest healthy
 * answer here (a sign-in, one argon2 hash) takes a fraction of it.
 */
export const BOUND_MS = 3_000;

export type Timed = { res: LightMyRequestResponse; ms: number };

/** A request through app.inject, timed. */
export async function timedCall(
  app: FastifyInstance,
  method: Parameters<typeof call>[1],
  url: string,
  opts?: Parameters<typeof call>[3],
): Promise<Timed> {
  const started = performance.now();
  const res = await call(app, method, url, opts);
  return { res, ms: performance.now() - started };
}

/** Answered within the bound, and not a 500 (an unnamed failure). */
export function expectAnswered({ res, ms }: Timed, what: string): LightMyRequestResponse {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).not.toBe(500);
  expect(ms, `${what} took ${Math.round(ms)} ms`).toBeLessThan(BOUND_MS);
  return res;
}

/** Polls `check` until it holds; throws naming `what` past the deadline. Answers the time it took. */
export async function pollUntil(what: string, check: () => Promise<boolean>, deadlineMs = 20_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > deadlineMs) throw new Error(`${what}: not within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Health = {
  status: 'ok' | 'degraded';
  ready: boolean;
  dependencies: Record<string, { state: string; kind: string; required: boolean; error?: string }>;
};

/** `/api/health` as a load balancer sees it: the status code and the report (from the 503's `health` too). */
export async function health(app: FastifyInstance): Promise<{ statusCode: number; report: Health }> {
  const res = await call(app, 'GET', '/api/health');
  const body = res.json();
  return { statusCode: res.statusCode, report: res.statusCode === 200 ? body.data : body.health };
}

/** The value of one sample of a `/metrics` exposition (0 when absent). */
export async function metric(app: FastifyInstance, sample: string): Promise<number> {
  const text = (await call(app, 'GET', '/metrics')).body;
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

/** Every log line the app writes, parsed (the app's `logDestination`). */
export function logLines() {
  const lines: { level: number; msg?: string; [k: string]: unknown }[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, destination };
}

/**
 * A Redis server of the test's own (the machine's /usr/bin/redis-server) on a free port, keeping
 * nothing on disk, which the test stops, starts again on the same port, freezes and thaws.
 */
export async function privateRedis() {
  const port = await freeLoopbackPort();
  let child: ChildProcess | null = null;
  const start = async () => {
    const c = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = c;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      c.stdout?.on('data', (d) => {
        out += String(d);
        if (out.includes('Ready to accept connections')) resolve();
      });
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)));
    });
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGCONT'); // a frozen server must run to handle its SIGTERM
    c.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    /** the process stops running: connections stay open, nothing is answered (a hung server) */
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
  };
}
