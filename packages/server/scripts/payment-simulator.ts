/**
 * `npm run simulator`: the payment channel simulators of the tests (test/payment/simulator/), run
 * next to `npm start` so a developer can try payments without a merchant account (README, "Trying
 * payments locally"). It listens on fixed loopback ports, keeps its key material under
 * `data/simulator/`, beside the service's data (so stored configurations stay valid across restarts; `--reset` makes new
 * keys), writes the three configurations in the admin API's shape, and serves a small control API
 * through which the developer acts as the payer:
 *   POST /pay            {channel, orderNo}   the order is paid; the signed callback is delivered
 *   POST /refund/settle  {channel, refundNo}  the refund succeeds; the signed callback is delivered
 * Callbacks go to the notify URL the order was created with, else SERVICE_URL + the notify path.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { onStopRequest } from '../src/stop-requests.ts';
import {
  type Channel,
  closeSims,
  configBodies,
  type Sims,
  type SimsKeys,
  simOf,
  simsKeys,
  simulatorHosts,
  startSims,
} from '../test/payment/simulator/sims.ts';

const CHANNELS: Channel[] = ['channel_a', 'channel_b', 'channel_c'];
const LABEL: Record<Channel, string> = {
  channel_a: 'WeChat Pay v3',
  channel_b: 'Alipay',
  channel_c: 'UnionPay 5.1.0',
};
const notifyPath = (channel: Channel) => `/api/public/payment/notify/${channel}`;

const { values: args } = parseArgs({
  options: {
    'control-port': { type: 'string' },
    'channel-a-port': { type: 'string' },
    'channel-b-port': { type: 'string' },
    'channel-c-port': { type: 'string' },
    'service-url': { type: 'string' },
    'data-dir': { type: 'string' },
    reset: { type: 'boolean', default: false },
    register: { type: 'boolean', default: false },
    token: { type: 'string' },
    api: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  console.log(`usage: npm run simulator -- [options]
  --control-port N      control API (SIMULATOR_PORT, default 4700); 0 takes a free port
  --channel-a-port N    channel_a simulator (SIMULATOR_CHANNEL_A_PORT, default 4701)
  --channel-b-port N    channel_b simulator (SIMULATOR_CHANNEL_B_PORT, default 4702)
  --channel-c-port N    channel_c simulator (SIMULATOR_CHANNEL_C_PORT, default 4703)
  --service-url URL     the service (SERVICE_URL, default http://127.0.0.1:3000): notify URLs
  --data-dir DIR        key material and configurations (SIMULATOR_DATA_DIR, default DATA_DIR/simulator,
                        DATA_DIR being the service's, ./data)
  --reset               new keys (configurations stored in the service must then be updated)
  --register            create or update the three configurations through the admin API, signed in
                        with a tenant administrator's access token: SIMULATOR_TOKEN (not shown by ps)
                        or --token TOKEN
  --api URL             the admin API for --register (default: the service URL)`);
  process.exit(0);
}

function port(flag: string | undefined, env: string, fallback: number): number {
  const text = flag ?? process.env[env] ?? String(fallback);
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`simulator: ${env} / port flag must be 0-65535, got "${text}"`);
    process.exit(64);
  }
  return n;
}

const controlPort = port(args['control-port'], 'SIMULATOR_PORT', 4700);
const ports = {
  a: port(args['channel-a-port'], 'SIMULATOR_CHANNEL_A_PORT', 4701),
  b: port(args['channel-b-port'], 'SIMULATOR_CHANNEL_B_PORT', 4702),
  c: port(args['channel-c-port'], 'SIMULATOR_CHANNEL_C_PORT', 4703),
};
const serviceUrl = (args['service-url'] ?? process.env.SERVICE_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
// Beside the service's own data (DATA_DIR, ./data), relative to where `npm run simulator` was typed.
const cwd = process.env.INIT_CWD ?? process.cwd();
const dataDir = resolve(
  cwd,
  args['data-dir'] ?? process.env.SIMULATOR_DATA_DIR ?? join(process.env.DATA_DIR ?? 'data', 'simulator'),
);
const token = args.token ?? process.env.SIMULATOR_TOKEN ?? '';
if (args.register && !token.trim()) {
  console.error(
    "simulator: --register needs a tenant administrator's access token in SIMULATOR_TOKEN (or --token); it is empty. " +
      'Sign in first (README, "Trying payments locally", step 2).',
  );
  process.exit(64);
}
if (!args.register && args.token !== undefined) {
  console.error('simulator: --token is only used with --register');
  process.exit(64);
}
const stateFile = join(dataDir, 'state.json');
const configsFile = join(dataDir, 'channel-configs.json');

function savedKeys(): SimsKeys | undefined {
  if (args.reset) return undefined;
  try {
    return (JSON.parse(readFileSync(stateFile, 'utf8')) as { keys: SimsKeys }).keys;
  } catch {
    return undefined;
  }
}

/** The bodies of POST /api/payment/channel-configs, one per channel, named so --register can find them again. */
function configurations(sims: Sims) {
  const bodies = configBodies(sims);
  return CHANNELS.map((channel) => ({
    channel,
    name: `Simulator ${channel}`,
    notifyUrl: `${serviceUrl}${notifyPath(channel)}`,
    ...bodies[channel],
  }));
}

type Body = ReturnType<typeof configurations>[number];

/** Creates the configurations missing by name, updates the others to the current keys. */
async function register(api: string, token: string, bodies: Body[]) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
    const json = (await res.json().catch(() => null)) as { data?: unknown; message?: string } | null;
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${json?.message ?? ''}`);
    return json?.data;
  };
  const existing = (await send('GET', '/api/payment/channel-configs?pageSize=200')) as {
    list: { id: number; channel: string; name: string }[];
  };
  for (const { channel, name, ...rest } of bodies) {
    const found = existing.list.find((c) => c.channel === channel && c.name === name);
    if (found) await send('PUT', `/api/payment/channel-configs/${found.id}`, rest);
    else await send('POST', '/api/payment/channel-configs', { channel, name, ...rest });
    console.log(`${found ? 'updated' : 'created'} configuration "${name}"`);
  }
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        done(parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {});
      } catch {
        done({});
      }
    });
  });
}

function reply(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(`${JSON.stringify(body)}\n`);
}

/** The control API: the developer as the payer, through the simulators' own notifyPaid / notifyRefund. */
function controlApi(sims: Sims) {
  return createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://control').pathname;
    if (req.method === 'GET' && path === '/') {
      const channels = Object.fromEntries(CHANNELS.map((c) => [c, simOf(sims, c).baseUrl]));
      return reply(res, 200, { channels, egressAllowHosts: simulatorHosts(sims), configurations: configsFile });
    }
    const action = req.method === 'POST' && ({ '/pay': 'orderNo', '/refund/settle': 'refundNo' } as const)[path];
    if (!action)
      return reply(res, 404, { error: 'POST /pay {channel, orderNo} or /refund/settle {channel, refundNo}' });
    const body = await readJson(req);
    const channel = body.channel as Channel;
    const no = body[action];
    if (!CHANNELS.includes(channel) || typeof no !== 'string' || !no) {
      return reply(res, 400, { error: `expected {"channel": "channel_a|channel_b|channel_c", "${action}": "…"}` });
    }
    const sim = simOf(sims, channel);
    const fallback = `${serviceUrl}${notifyPath(channel)}`;
    try {
      const delivered = await (action === 'orderNo' ? sim.notifyPaid(no, fallback) : sim.notifyRefund(no, fallback));
      console.log(`${channel} ${no}: callback to ${delivered.url} answered ${delivered.status} ${delivered.body}`);
      reply(res, 200, { channel, [action]: no, delivered });
    } catch (err) {
      const message = (err as Error).message;
      // a number the simulator never saw, or a service that did not answer
      reply(res, /\bno (order|trade|refund)\b/.test(message) ? 404 : 502, { error: message });
    }
  });
}

const sims = await startSims({ ports, keys: savedKeys() }).catch((err: Error) => {
  console.error(`simulator: could not start (${err.message}); other ports: --channel-a-port etc., see --help`);
  process.exit(1);
});
mkdirSync(dataDir, { recursive: true });
writeFileSync(stateFile, JSON.stringify({ keys: simsKeys(sims) }, null, 2), { mode: 0o600 });
const bodies = configurations(sims);
writeFileSync(configsFile, JSON.stringify(bodies, null, 2), { mode: 0o600 });

const control = controlApi(sims);
try {
  await new Promise<void>((done, fail) => control.once('error', fail).listen(controlPort, '127.0.0.1', done));
} catch (err) {
  console.error(`simulator: control API could not listen on ${controlPort}: ${(err as Error).message}`);
  await closeSims(sims);
  process.exit(1);
}
const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  // keep-alive connections of the service would hold the servers open
  setTimeout(() => process.exit(), 3000).unref();
  control.closeAllConnections();
  await Promise.all([new Promise((done) => control.close(done)), closeSims(sims)]);
  // fetch's pooled keep-alive sockets to the service would otherwise hold the process a few seconds more
  process.exit(); // 0, or the exitCode a failed --register set
}
onStopRequest(() => void stop());

for (const channel of CHANNELS) console.log(`${channel} (${LABEL[channel]}): ${simOf(sims, channel).baseUrl}`);
console.log(`EGRESS_ALLOW_HOSTS=${simulatorHosts(sims)}`);
console.log(`configurations (POST /api/payment/channel-configs bodies): ${configsFile}`);
if (args.register) {
  // Asked to register and could not: not "ready" for the flow the person expects.
  await register((args.api ?? serviceUrl).replace(/\/+$/, ''), token.trim(), bodies).catch(async (err: Error) => {
    console.error(`simulator: --register failed: ${err.message}`);
    process.exitCode = 1;
    await stop();
  });
}
console.log(`simulator ready: control API ${controlUrl} (POST /pay, POST /refund/settle)`);
