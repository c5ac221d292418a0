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

const FREE_PORTS = ['--control-port', '--channel-a-port', '--channel-b-port', '--channel-c-port'].flatMap((f) => [
  f,
  '0',
]);

/** Runs the command on free ports, its environment without any simulator or npm variables but `env`. */
function runCommand(args: string[], env: Record<string, string> = {}): Running {
  const proc = spawn(process.execPath, [script, ...FREE_PORTS, ...args], {
    stdio: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  let output = '';
  proc.stdout.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  proc.stderr.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  const exited = new Promise<number | null>((done) => proc.on('exit', (code) => done(code)));
  return { proc, output: () => output, exited };
}

/** Starts the command and resolves once it printed its ready line. */
async function startCommand(args: string[] = ['--data-dir', dataDir], env?: Record<string, string>): Promise<Running> {
  const running = runCommand(args, env);
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`no ready line within 20 s:\n${running.output()}`)), 20_000);
    const check = () => {
      if (!/simulator ready: /.test(running.output())) return;
      clearTimeout(timer);
      ready();
    };
    running.proc.stdout.on('data', check);
    void running.exited.then((code) => fail(new Error(`exited with ${code}:\n${running.output()}`)));
  });
  return running;
}

const printed = (output: string, pattern: RegExp) => {
  const m = output.match(pattern);
  if (!m?.[1]) throw new Error(`not printed: ${pattern}\n${output}`);
  return m[1];
};

let sim: Running;
let t: TestApp;
/** the service, listening on a loopback port of its own */
let api: string;

beforeAll(async () => {
  sim = await startCommand();
  t = await createTestApp({ env: { EGRESS_ALLOW_HOSTS: printed(sim.output(), /^EGRESS_ALLOW_HOSTS=(\S+)$/m) } });
  api = await t.app.listen({ port: 0, host: '127.0.0.1' });
}, 30_000);

afterAll(async () => {
  if (sim?.proc.exitCode === null) sim.proc.kill('SIGKILL');
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run simulator', () => {
  it('an order created at the printed channel_a configuration succeeds once the control API pays it', async () => {
    const serviceUrl = api;
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

  it('--register with SIMULATOR_TOKEN creates the three configurations in the service, its data beside DATA_DIR', async () => {
    const root = mkdtempSync(join(tmpdir(), 'atrium-simulator-cwd-'));
    try {
      // DATA_DIR relative to where npm was typed (INIT_CWD), as `npm start` resolves it
      const running = await startCommand(['--register', '--api', api], {
        SIMULATOR_TOKEN: t.demoAdminToken,
        INIT_CWD: root,
        DATA_DIR: 'rel-data',
      });
      expect(running.output()).toContain(
        `configurations (POST /api/payment/channel-configs bodies): ${root}/rel-data/simulator/channel-configs.json`,
      );
      for (const channel of ['channel_a', 'channel_b', 'channel_c'])
        expect(running.output()).toMatch(new RegExp(`(created|updated) configuration "Simulator ${channel}"`));
      const listed = await call(t.app, 'GET', '/api/payment/channel-configs?pageSize=200', { token: t.demoAdminToken });
      expect(
        listed
          .json()
          .data.list.map((c: { name: string }) => c.name)
          .sort(),
      ).toEqual(expect.arrayContaining(['Simulator channel_a', 'Simulator channel_b', 'Simulator channel_c']));
      running.proc.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);

  it('--register with an empty token stops before starting, saying where the token goes', async () => {
    const envs: Record<string, string>[] = [{}, { SIMULATOR_TOKEN: '  ' }];
    for (const env of envs) {
      const running = runCommand(['--data-dir', dataDir, '--register'], env);
      expect(await running.exited).toBe(64);
      expect(running.output()).toMatch(/--register needs .*access token in SIMULATOR_TOKEN \(or --token\)/);
      expect(running.output()).not.toContain('simulator ready');
    }
  });

  it('--register refused by the service exits non-zero and never says ready', async () => {
    const running = runCommand(['--data-dir', dataDir, '--register', '--api', api], { SIMULATOR_TOKEN: 'not-a-token' });
    expect(await running.exited).toBe(1);
    expect(running.output()).toMatch(/--register failed: GET \/api\/payment\/channel-configs.*: HTTP 401/);
    expect(running.output()).not.toContain('simulator ready');
  }, 30_000);

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
