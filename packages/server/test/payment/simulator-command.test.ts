import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { channelOrderNo } from './notify-harness.ts';

/**
 * `npm run simulator` (scripts/payment-simulator.ts) as a developer runs it: a process on free
 * ports whose printed EGRESS_ALLOW_HOSTS and channel_a configuration a service takes as they are;
 * an order created at it is paid through the control API, the callback reaches the service over
 * HTTP, and SIGTERM ends the process.
 */
const script = fileURLToPath(new URL('../../scripts/payment-simulator.ts', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'atrium-simulator-'));

type Running = { proc: ChildProcessWithoutNullStreams; output: () => string; exited: Promise<number | null> };

/** Starts the command on free ports and resolves once it printed its ready line. */
async function startCommand(): Promise<Running> {
  const ports = ['--control-port', '--channel-a-port', '--channel-b-port', '--channel-c-port'].flatMap((f) => [f, '0']);
  const proc = spawn(process.execPath, [script, ...ports, '--data-dir', dataDir], { stdio: 'pipe' });
  let output = '';
  proc.stdout.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  proc.stderr.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  const exited = new Promise<number | null>((done) => proc.on('exit', (code) => done(code)));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`no ready line within 20 s:\n${output}`)), 20_000);
    const check = () => {
      if (!/simulator ready: /.test(output)) return;
      clearTimeout(timer);
      ready();
    };
    proc.stdout.on('data', check);
    void exited.then((code) => fail(new Error(`exited with ${code}:\n${output}`)));
  });
  return { proc, output: () => output, exited };
}

const printed = (output: string, pattern: RegExp) => {
  const m = output.match(pattern);
  if (!m?.[1]) throw new Error(`not printed: ${pattern}\n${output}`);
  return m[1];
};

let sim: Running;
let t: TestApp;

beforeAll(async () => {
  sim = await startCommand();
  t = await createTestApp({ env: { EGRESS_ALLOW_HOSTS: printed(sim.output(), /^EGRESS_ALLOW_HOSTS=(\S+)$/m) } });
}, 30_000);

afterAll(async () => {
  if (sim?.proc.exitCode === null) sim.proc.kill('SIGKILL');
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run simulator', () => {
  it('an order created at the printed channel_a configuration succeeds once the control API pays it', async () => {
    const serviceUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const file = printed(sim.output(), /^configurations \(.*\): (.+)$/m);
    const bodies = JSON.parse(readFileSync(file, 'utf8')) as { channel: string; notifyUrl: string }[];
    const body = bodies.find((b) => b.channel === 'channel_a');
    expect(body?.notifyUrl).toBe('http://127.0.0.1:3000/api/public/payment/notify/channel_a');
    // this service listens on a port of its own, not the default 3000
    const notifyUrl = `${serviceUrl}/api/public/payment/notify/channel_a`;
    const stored = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token: t.demoAdminToken,
      body: { ...body, notifyUrl },
    });
    expect(stored.statusCode, stored.body).toBe(201);

    const orderNo = channelOrderNo();
    const created = await call(t.app, 'POST', '/api/payment/orders', {
      token: t.demoAdminToken,
      body: { orderNo, amount: 1999, channel: 'channel_a', subject: 'Atrium order' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const order = created.json().data as { id: number; status: string };
    expect(order.status).toBe('paying');

    const control = printed(sim.output(), /simulator ready: control API (\S+)/);
    const paid = await fetch(`${control}/pay`, {
      method: 'POST',
      body: JSON.stringify({ channel: 'channel_a', orderNo }),
    });
    expect(await paid.json()).toEqual({
      channel: 'channel_a',
      orderNo,
      delivered: { url: notifyUrl, status: 204, body: '' },
    });
    const after = await call(t.app, 'GET', `/api/payment/orders/${order.id}`, { token: t.demoAdminToken });
    expect(after.json().data.status).toBe('succeeded');

    const unknown = await fetch(`${control}/pay`, {
      method: 'POST',
      body: JSON.stringify({ channel: 'channel_a', orderNo: 'NOPE' }),
    });
    expect(unknown.status).toBe(404);
  });

  it('SIGTERM ends it; a restart keeps the keys, so stored configurations stay valid', async () => {
    const file = printed(sim.output(), /^configurations \(.*\): (.+)$/m);
    const first = readFileSync(file, 'utf8');
    sim.proc.kill('SIGTERM');
    expect(await sim.exited).toBe(0);

    const again = await startCommand();
    try {
      const secrets = (text: string) => (JSON.parse(text) as { secrets: unknown }[]).map((b) => b.secrets);
      expect(secrets(readFileSync(file, 'utf8'))).toEqual(secrets(first));
    } finally {
      again.proc.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    }
  }, 30_000);
});
