import { createHash, createPublicKey, createVerify, randomBytes, X509Certificate } from 'node:crypto';
import { Agent, request } from 'node:http';
import { decryptResource } from '../packages/server/src/modules/payment/channels/channel-a/aead.ts';
import {
  closeSims,
  configBodies,
  type Sims,
  simulatorHosts,
  startSims,
} from '../packages/server/test/payment/simulator/sims.ts';
import { type InProcess, quantile, withInProcessService } from './in-process.ts';

/**
 * The payment callback scenarios (issue 16, Bench): verified callbacks per second of each channel
 * through the real route `POST /api/public/payment/notify/{channel}` over HTTP, each callback a
 * different order (so each applies a state change, writes an outbox event and a log row), against
 * the bare cost of the same signature verification with node:crypto in a loop — the physical
 * limit; then a 200-way duplicate storm of one callback per channel, checked in the database for
 * exactly one state change and one outbox event. Callbacks are signed by the channel simulators of
 * the tests, exactly as the channels sign them. The service is built in this process on a fresh
 * embedded PostgreSQL (bench/in-process.ts), production mode.
 */
const CALLBACKS = 400;
const WARMUP = 40;
const CONNECTIONS = 4;
const STORM = 200;
const BARE_SECONDS = 1;
const ORDER_BATCH = 10;
const PASSWORD = `Bench#${randomBytes(6).toString('hex')}`;

type Channel = 'channel_a' | 'channel_b' | 'channel_c';
type Callback = { rawBody: Buffer; headers: Record<string, string> };
type Order = { id: number; orderNo: string; amount: number; createdAt: string };

export type PaymentRow = {
  channel: Channel;
  reqPerSec: number;
  /** CPU time of the bench process (service and HTTP client) per measured callback: what the load costs Node, whatever else runs */
  cpuMsPerCallback: number;
  p50: number;
  p99: number;
  bareOpsPerSec: number;
  stormP50: number;
  stormP99: number;
  /** what the storm left in the database: the order's version, its outbox events, its log results */
  storm: { version: number; events: number; applied: number; duplicate: number };
  problems: string[];
};

/** Each channel's acknowledgement of a processed callback (notify-channels.test.ts). */
const ACK: Record<Channel, { status: number; body: string }> = {
  channel_a: { status: 204, body: '' },
  channel_b: { status: 200, body: 'success' },
  channel_c: { status: 200, body: 'ok' },
};

export async function paymentScenario(): Promise<PaymentRow[]> {
  const sims = await startSims();
  try {
    return await withInProcessService(
      // the adapters reach the simulators on loopback, which egress refuses unless allowed
      { prefix: 'atrium-bench-payments-', password: PASSWORD, env: { EGRESS_ALLOW_HOSTS: simulatorHosts(sims) } },
      async (service) => {
        const token = await signIn(service);
        const rows: PaymentRow[] = [];
        for (const channel of ['channel_a', 'channel_b', 'channel_c'] as const) {
          await configure(service, token, sims, channel);
          rows.push(await channelRow(service, token, sims, channel));
        }
        return rows;
      },
    );
  } finally {
    await closeSims(sims);
  }
}

async function channelRow(service: InProcess, token: string, sims: Sims, channel: Channel): Promise<PaymentRow> {
  const problems: string[] = [];
  const orders = await createOrders(service, token, sims, channel, WARMUP + CALLBACKS + 1);
  const stormOrder = orders.pop() as Order;
  const callbacks = orders.map((o) => paidCallback(sims, channel, o));
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  try {
    // the warm-up also makes channel_a download its platform certificates once
    await drive(service.base, channel, callbacks.slice(0, WARMUP), agent);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const times = await drive(service.base, channel, callbacks.slice(WARMUP), agent);
    const cpu = process.cpuUsage(cpu0);
    const seconds = (performance.now() - t0) / 1000;
    const applied = await appliedCount(service, orders.slice(WARMUP));
    if (applied.succeeded !== CALLBACKS || applied.events !== CALLBACKS || applied.logs !== CALLBACKS)
      problems.push(
        `${channel}: ${CALLBACKS} callbacks left ${applied.succeeded} orders succeeded, ${applied.events} outbox events, ${applied.logs} applied log rows`,
      );
    const bareOpsPerSec = bareVerifications(sims, channel, callbacks);
    const storm = await duplicateStorm(service, sims, channel, stormOrder);
    if (storm.state.version !== 2 || storm.state.events !== 1 || storm.state.applied !== 1)
      problems.push(
        `${channel} storm: order version ${storm.state.version} (2 = one change), ${storm.state.events} outbox events, ${storm.state.applied} applied`,
      );
    return {
      channel,
      reqPerSec: CALLBACKS / seconds,
      cpuMsPerCallback: (cpu.user + cpu.system) / 1000 / CALLBACKS,
      p50: quantile(times, 0.5),
      p99: quantile(times, 0.99),
      bareOpsPerSec,
      stormP50: quantile(storm.times, 0.5),
      stormP99: quantile(storm.times, 0.99),
      storm: storm.state,
      problems,
    };
  } finally {
    agent.destroy();
  }
}

async function signIn(service: InProcess): Promise<string> {
  const res = await service.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password: PASSWORD, tenantCode: 'demo' },
  });
  if (res.statusCode !== 200) throw new Error(`payments bench: demo admin sign-in failed: ${res.body}`);
  return res.json().data.accessToken as string;
}

async function call(service: InProcess, token: string, url: string, payload: object) {
  const res = await service.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload });
  if (res.statusCode !== 201) throw new Error(`payments bench: POST ${url} answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** One configuration of the channel pointing at its simulator, in the stored shape (configs/fields.ts). */
async function configure(service: InProcess, token: string, s: Sims, channel: Channel) {
  await call(service, token, '/api/payment/channel-configs', { channel, name: channel, ...configBodies(s)[channel] });
}

let seq = 0;
/** Orders created through the API at the channel (setup, not measured), a few at a time. */
async function createOrders(service: InProcess, token: string, s: Sims, channel: Channel, n: number) {
  const orders: Order[] = [];
  while (orders.length < n) {
    const batch = Math.min(ORDER_BATCH, n - orders.length);
    const created = await Promise.all(
      Array.from({ length: batch }, () => {
        // channel_c takes 8–32 letters and digits
        const orderNo = `B${Date.now().toString(36)}${String(++seq).padStart(5, '0')}`.toUpperCase();
        return call(service, token, '/api/payment/orders', { orderNo, amount: 1999, channel, subject: 'Bench order' });
      }),
    );
    for (const o of created as Order[]) {
      // as the payer's client does: channel_c's gateway order is opened, channel_b's code scanned
      if (channel === 'channel_c') s.c.open(o.orderNo, o.amount, new Date(o.createdAt));
      if (channel === 'channel_b') s.b.scan(o.orderNo);
      orders.push(o);
    }
  }
  return orders;
}

const form = (body: string): Callback => ({
  rawBody: Buffer.from(body, 'utf8'),
  headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
});

/** The order paid at the simulator and its payment callback, signed as the channel signs it. */
function paidCallback(s: Sims, channel: Channel, o: Order): Callback {
  if (channel === 'channel_b') return form(s.b.pay(o.orderNo));
  if (channel === 'channel_c') return form(s.c.formBody(s.c.pay(o.orderNo)));
  s.a.pay(o.orderNo);
  return s.a.paymentCallback(o.orderNo);
}

/** POSTs one callback; resolves with its latency in ms once the acknowledgement is read and checked. */
function post(base: string, channel: Channel, cb: Callback, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      `${base}/api/public/payment/notify/${channel}`,
      { method: 'POST', agent, headers: { ...cb.headers, 'content-length': String(cb.rawBody.length) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          const ms = performance.now() - t0;
          const ack = ACK[channel];
          if (res.statusCode === ack.status && body === ack.body) resolve(ms);
          else
            reject(new Error(`payments bench: ${channel} callback answered ${res.statusCode} ${body.slice(0, 200)}`));
        });
      },
    );
    req.on('error', reject);
    req.end(cb.rawBody);
  });
}

/** Sends `callbacks` over the agent's keep-alive connections, one in flight per connection; latencies sorted. */
async function drive(base: string, channel: Channel, callbacks: Callback[], agent: Agent): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < callbacks.length; i = next++)
      times.push(await post(base, channel, callbacks[i] as Callback, agent));
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return times.sort((x, y) => x - y);
}

/** Of `orders`: how many succeeded, their outbox events and their `applied` log rows. */
async function appliedCount(service: InProcess, orders: Order[]) {
  const ids = orders.map((o) => o.id);
  const nos = orders.map((o) => o.orderNo);
  const count = async (text: string, params: unknown[]) => Number((await service.raw.query(text, params)).rows[0]?.n);
  return {
    succeeded: await count(`select count(*) n from payment_orders where id = any($1) and status = 'succeeded'`, [ids]),
    events: await count(
      `select count(*) n from payment_events where aggregate_type = 'order' and aggregate_id = any($1)`,
      [ids],
    ),
    logs: await count(`select count(*) n from payment_notify_logs where order_no = any($1) and result = 'applied'`, [
      nos,
    ]),
  };
}

/** 200 concurrent copies of one genuine callback, each on its own connection, opened beforehand. */
async function duplicateStorm(service: InProcess, s: Sims, channel: Channel, order: Order) {
  const cb = paidCallback(s, channel, order);
  const agent = new Agent({ keepAlive: true, maxSockets: STORM });
  try {
    // opens the 200 connections first, so the storm's latencies are requests, not TCP handshakes
    await Promise.all(Array.from({ length: STORM }, () => fetchHealth(service.base, agent)));
    const times = await Promise.all(Array.from({ length: STORM }, () => post(service.base, channel, cb, agent)));
    const one = async (text: string) => (await service.raw.query(text, [order.id, order.orderNo])).rows[0] ?? {};
    const row = await one(
      `select o.version,
         (select count(*) from payment_events e where e.aggregate_type = 'order' and e.aggregate_id = $1) events,
         (select count(*) from payment_notify_logs l where l.order_no = $2 and l.result = 'applied') applied,
         (select count(*) from payment_notify_logs l where l.order_no = $2 and l.result = 'duplicate') duplicate
       from payment_orders o where o.id = $1`,
    );
    return {
      times: times.sort((x, y) => x - y),
      state: {
        version: Number(row.version),
        events: Number(row.events),
        applied: Number(row.applied),
        duplicate: Number(row.duplicate),
      },
    };
  } finally {
    agent.destroy();
  }
}

function fetchHealth(base: string, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    request(`${base}/api/health`, { agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`health ${res.statusCode}`))));
    })
      .on('error', reject)
      .end();
  });
}

/**
 * The same verification as each adapter, with node:crypto directly in a loop over the run's
 * callbacks (no route, no database): verifications per second after a warm-up, the physical limit.
 */
function bareVerifications(s: Sims, channel: Channel, callbacks: Callback[]): number {
  const verify = bareVerifier(s, channel);
  for (let i = 0; i < 100; i++) verify(callbacks[i % callbacks.length] as Callback);
  let n = 0;
  const t0 = performance.now();
  const until = t0 + BARE_SECONDS * 1000;
  while (performance.now() < until) {
    if (!verify(callbacks[n % callbacks.length] as Callback))
      throw new Error(`payments bench: the bare ${channel} verification refused a genuine callback`);
    n++;
  }
  return n / ((performance.now() - t0) / 1000);
}

const sortedString = (fields: Record<string, string>, leaveOut: string[]) =>
  Object.keys(fields)
    .filter((k) => !leaveOut.includes(k) && fields[k] !== '')
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');

function bareVerifier(s: Sims, channel: Channel): (cb: Callback) => boolean {
  if (channel === 'channel_a') {
    // SHA256withRSA over `timestamp\nnonce\nbody\n` with the platform certificate's key, then AES-256-GCM
    const keys = new Map(s.a.certificates.map((c) => [c.serial, new X509Certificate(c.pem).publicKey]));
    const apiV3Key = Buffer.from(s.a.config().apiV3Key, 'utf8');
    return ({ rawBody, headers: h }) => {
      const key = keys.get(h['wechatpay-serial'] ?? '');
      if (!key) return false;
      const message = Buffer.concat([
        Buffer.from(`${h['wechatpay-timestamp']}\n${h['wechatpay-nonce']}\n`),
        rawBody,
        Buffer.from('\n'),
      ]);
      if (
        !createVerify('RSA-SHA256')
          .update(message)
          .verify(key, h['wechatpay-signature'] ?? '', 'base64')
      )
        return false;
      return decryptResource(JSON.parse(rawBody.toString('utf8')).resource, apiV3Key).length > 0;
    };
  }
  if (channel === 'channel_b') {
    // RSA2: SHA256withRSA over the sorted string of the decoded fields, sign and sign_type left out
    const key = createPublicKey(s.b.walletPublicKeyPem);
    return ({ rawBody }) => {
      const fields = Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
      const text = sortedString(fields, ['sign', 'sign_type']);
      return createVerify('RSA-SHA256')
        .update(text, 'utf8')
        .verify(key, fields.sign ?? '', 'base64');
    };
  }
  // the carried certificate issued by the intermediate, then SHA256withRSA over the hex SHA-256 of the sorted string
  const middle = s.c.middle.cert;
  return ({ rawBody }) => {
    const fields = Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
    const leaf = new X509Certificate(fields.signPubKeyCert ?? '');
    if (!leaf.checkIssued(middle) || !leaf.verify(middle.publicKey)) return false;
    const hex = createHash('sha256')
      .update(sortedString(fields, ['signature']), 'utf8')
      .digest('hex');
    return createVerify('RSA-SHA256')
      .update(hex, 'utf8')
      .verify(leaf.publicKey, fields.signature ?? '', 'base64');
  };
}

type Table = (head: string[], body: string[][], textColumns?: number) => string[];

/** The "## Payments" section of bench/results/latest.md. */
export function paymentSection(rows: PaymentRow[], table: Table, extraNotes: string[] = []): string[] {
  const f = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const stormOk = (r: PaymentRow) =>
    r.storm.version === 2 && r.storm.events === 1 && r.storm.applied === 1 && r.storm.duplicate === STORM - 1;
  return [
    '## Payments',
    '',
    `Verified payment callbacks through \`POST /api/public/payment/notify/{channel}\` over HTTP, ${CONNECTIONS} keep-alive ` +
      `connections, one in flight each: ${CALLBACKS} callbacks per channel after ${WARMUP} warm-up ones, each for a different ` +
      'order (a state change, an outbox event and a log row each), signed by the channel simulators of the tests. Bare = ' +
      `the same signature verification with node:crypto in a loop over the same callbacks for ${BARE_SECONDS} s, no route, ` +
      `no database (the physical limit). Storm = ${STORM} concurrent copies of one callback, each on its own open ` +
      'connection. The service runs in the bench process on a fresh embedded PostgreSQL (production mode), so the HTTP ' +
      'client shares its event loop.',
    '',
    ...table(
      [
        'channel',
        'callbacks/s',
        'p50 ms',
        'p99 ms',
        'Node CPU ms/callback',
        'bare verifications/s',
        'ratio to bare',
        'storm p50 ms',
        'storm p99 ms',
        'storm result',
      ],
      rows.map((r) => [
        r.channel,
        f(r.reqPerSec),
        f(r.p50, 2),
        f(r.p99, 2),
        f(r.cpuMsPerCallback, 2),
        f(r.bareOpsPerSec),
        f(r.reqPerSec / r.bareOpsPerSec, 3),
        f(r.stormP50, 1),
        f(r.stormP99, 1),
        `${stormOk(r) ? 'one change, one event' : 'FAILED'} (version ${r.storm.version}, ${r.storm.events} event, ${r.storm.applied} applied + ${r.storm.duplicate} duplicate logs)`,
      ]),
      1,
    ),
    '',
    '- Node CPU ms/callback: user + system time of the bench process (the service and the HTTP client, not ' +
      'PostgreSQL) over the measured callbacks ÷ their number; less sensitive than callbacks/s to other load on the machine',
    '- bare: channel_a = SHA256withRSA verify of `timestamp\\nnonce\\nbody\\n` + AES-256-GCM decrypt of the resource; ' +
      'channel_b = RSA2 verify of the sorted string; channel_c = chain check of the carried certificate against the ' +
      'intermediate + SHA256withRSA verify of the hex SHA-256 (the service caches the chain check per certificate, the ' +
      'bare loop does it every time)',
    ...[...rows.flatMap((r) => r.problems), ...extraNotes].map((n) => `- ${n}`),
    '',
  ];
}
