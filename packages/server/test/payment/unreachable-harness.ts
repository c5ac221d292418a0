import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { paymentEventRecords } from '../../src/modules/payment/tables.ts';
import { call, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app.ts';
import { type ChannelBSimulator, startChannelBSimulator } from './simulator/channel-b.ts';

/**
 * One database and the channel_b simulator, seen by three instances: `blocked` runs without
 * EGRESS_ALLOW_HOSTS (as a service started before the operator allowed the simulator), `allowed`
 * and `allowed2` name the simulator's loopback port. The demo tenant has one channel_b
 * configuration pointing at the simulator. `logs` holds every instance's log lines.
 */
export type Harness = {
  sim: ChannelBSimulator;
  store: TestStore;
  blocked: TestApp;
  allowed: TestApp;
  allowed2: TestApp;
  token: string;
  /** the simulator's host:port, as EGRESS_ALLOW_HOSTS spells it */
  host: string;
  logs: Record<string, unknown>[];
  close(): Promise<void>;
};

export async function startHarness(): Promise<Harness> {
  const sim = await startChannelBSimulator();
  const store = await createTestStore();
  const logs: Record<string, unknown>[] = [];
  const logDestination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });
  const host = `127.0.0.1:${new URL(sim.baseUrl).port}`;
  // one field-encryption key: each instance opens the configuration secrets another sealed
  const env = { SECRET_KEYS: `test:${randomBytes(32).toString('base64')}`, LOG_LEVEL: 'info' };
  const started: TestApp[] = [];
  const close = async () => {
    for (const app of started.reverse()) await app.close();
    await store.drop();
    await sim.close();
  };
  try {
    const allowList: Record<string, string>[] = [{}, { EGRESS_ALLOW_HOSTS: host }, { EGRESS_ALLOW_HOSTS: host }];
    for (const extra of allowList) {
      started.push(await createTestApp({ store, env: { ...env, ...extra }, logDestination }));
    }
  } catch (err) {
    await close();
    throw err;
  }
  const [blocked, allowed, allowed2] = started as [TestApp, TestApp, TestApp];
  const token = blocked.demoAdminToken;
  const c = sim.config();
  const cfg = await call(blocked.app, 'POST', '/api/payment/channel-configs', {
    token,
    body: {
      channel: 'channel_b',
      name: 'Simulator channel_b',
      fields: { appId: c.appId, baseUrl: c.baseUrl ?? '', walletPublicKey: sim.walletPublicKeyPem },
      secrets: { appPrivateKey: sim.appPrivateKeyPem },
    },
  });
  expect(cfg.statusCode, cfg.body).toBe(201);
  return { sim, store, blocked, allowed, allowed2, token, host, logs, close };
}

let seq = 0;
/** channel_b order numbers: letters, digits and _ */
export const bOrderNo = () => `U${Date.now().toString(36)}_${++seq}`.toUpperCase();

export const orderBody = (orderNo: string, amount = 1999) => ({
  orderNo,
  amount,
  channel: 'channel_b',
  subject: 'Atrium order',
});

/** The gateway calls the simulator received for one order number. */
export function gatewayCalls(sim: ChannelBSimulator, method: string, outTradeNo: string): number {
  return sim.received.filter(
    (p) => p.method === method && JSON.parse(p.biz_content ?? '{}').out_trade_no === outTradeNo,
  ).length;
}

/** Every outbox event recorded for an order or refund. */
export async function eventsOf(t: TestApp, aggregateType: 'order' | 'refund', id: number) {
  const rows = await t.database.db.select().from(paymentEventRecords).where(eq(paymentEventRecords.aggregateId, id));
  return rows.filter((r) => r.aggregateType === aggregateType).map((r) => r.type);
}
