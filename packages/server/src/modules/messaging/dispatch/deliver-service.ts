import type { AppContext } from '../../../platform/context.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ChannelRegistry } from '../channels/registry.ts';
import type { Delivery, DeliveryOutcome } from '../channels/types.ts';
import { unsubscribeToken } from '../unsubscribe/token.ts';
import {
  claimPending,
  type PendingFilter,
  pendingChannels,
  postponeDispatches,
  releaseQuietHours,
  settleDispatches,
} from './dispatch-repository.ts';
import { outboxInputs } from './outbox-repository.ts';
import type { DispatchRow, OutboxInput } from './tables.ts';

const CLAIM = 1000;
/** how long a claimed row is this instance's to deliver; after it, the sweeper retakes it */
const LEASE_MS = 5 * 60_000;
/** deliver() calls of one channel running at once */
const PARALLEL_BATCHES = 4;
/**
 * A channel that could not be reached (outcome `retry`) is tried again after 30 s, doubling to at
 * most 30 min, by the sweeper (every minute); past 10 attempts (about two hours) the row fails.
 */
const RETRY_BASE_MS = 30_000;
const RETRY_MAX_MS = 30 * 60_000;
export const MAX_DELIVERY_ATTEMPTS = 10;
const retryDelayMs = (attempts: number) => Math.min(RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1), RETRY_MAX_MS);

export type Deliverer = ReturnType<typeof createDeliverer>;

/**
 * Delivers pending dispatch rows: claims them with a lease (FOR UPDATE SKIP LOCKED, so instances
 * never share a row), hands them to their channel's adapter in batches, and records each
 * outcome with a conditional update. A worker that dies leaves leased rows the sweeper retakes
 * once the lease expires.
 */
export function createDeliverer(
  ctx: Pick<AppContext, 'db' | 'clock' | 'log' | 'links' | 'secrets'>,
  registry: ChannelRegistry,
  catalog: Catalog,
) {
  function claim(filter: PendingFilter): Promise<DispatchRow[]> {
    const now = ctx.clock();
    return claimPending(ctx.db, filter, now, new Date(now.getTime() + LEASE_MS), CLAIM);
  }

  async function record(rows: DispatchRow[], outcomes: DeliveryOutcome[]) {
    const now = ctx.clock();
    const groups = new Map<string, { set: Partial<DispatchRow>; ids: number[] }>();
    const retries = new Map<number, { ids: number[]; error: string }>();
    rows.forEach((row, i) => {
      let o = outcomes[i] ?? { status: 'failed', error: 'the adapter returned no outcome' };
      if (o.status === 'retry' && row.attempts < MAX_DELIVERY_ATTEMPTS) {
        const at = now.getTime() + retryDelayMs(row.attempts);
        const r = retries.get(at) ?? { ids: [], error: o.error.slice(0, 2000) };
        r.ids.push(row.id);
        retries.set(at, r);
        return;
      }
      if (o.status === 'retry') o = { status: 'failed', error: `${o.error} (gave up after ${row.attempts} attempts)` };
      const set: Partial<DispatchRow> =
        o.status === 'sent'
          ? { decision: 'sent', deliveredAt: now, error: null }
          : o.status === 'unreachable'
            ? { decision: 'suppressed', reasonCode: 'unreachable', error: o.detail }
            : { decision: 'failed', reasonCode: 'delivery_error', error: o.error.slice(0, 2000) };
      const key = JSON.stringify(set);
      const g = groups.get(key) ?? { set, ids: [] };
      g.ids.push(row.id);
      groups.set(key, g);
    });
    for (const { set, ids } of groups.values()) await settleDispatches(ctx.db, ids, set, now);
    for (const [at, { ids, error }] of retries) await postponeDispatches(ctx.db, ids, new Date(at), error, now);
  }

  function toDelivery(row: DispatchRow, input: OutboxInput): Delivery | null {
    const event = catalog.get(row.eventKey);
    if (!event) return null;
    const person = row.recipientType !== 'external';
    return {
      dispatchId: row.id,
      tenantId: row.tenantId,
      event,
      variables: input.variables,
      contact: {
        type: row.recipientType,
        id: row.recipientId,
        key: row.recipientKey,
        tenantId: row.tenantId,
        ...row.contact,
      },
      link: input.link ?? null,
      channelOptions: input.channelOptions ?? {},
      unsubscribeUrl:
        row.channel === 'email' && !event.mandatory && (person || row.contact.address)
          ? ctx.links.to(
              `/api/notification-unsubscribe/${unsubscribeToken(ctx.secrets, {
                tenantId: row.tenantId,
                recipientKey: row.recipientKey,
                eventKey: row.eventKey,
              })}`,
            )
          : null,
    };
  }

  async function deliverGroup(rows: DispatchRow[], inputs: Map<number, OutboxInput>) {
    const channel = rows[0]?.channel;
    const adapter = channel ? registry.get(channel) : null;
    if (!adapter) {
      await record(
        rows,
        rows.map(() => ({ status: 'failed', error: `no adapter for channel ${channel}` })),
      );
      return;
    }
    const size = adapter.batchSize ?? 50;
    const batches: DispatchRow[][] = [];
    for (let i = 0; i < rows.length; i += size) batches.push(rows.slice(i, i + size));
    const run = async (batch: DispatchRow[]) => {
      const deliveries = batch.map((r) => toDelivery(r, inputs.get(r.outboxId) as OutboxInput));
      const ready = batch.filter((_, i) => deliveries[i]);
      let outcomes: DeliveryOutcome[];
      try {
        outcomes = ready.length ? await adapter.deliver(deliveries.filter((x): x is Delivery => x !== null)) : [];
      } catch (err) {
        ctx.log.error({ err, channel }, 'notifications: a channel adapter threw');
        outcomes = ready.map(() => ({ status: 'failed', error: (err as Error).message || 'channel error' }));
      }
      await record(ready, outcomes);
      const lost = batch.filter((_, i) => !deliveries[i]);
      if (lost.length)
        await record(
          lost,
          lost.map(() => ({ status: 'failed', error: 'unknown event key' })),
        );
    };
    for (let i = 0; i < batches.length; i += PARALLEL_BATCHES) {
      await Promise.all(batches.slice(i, i + PARALLEL_BATCHES).map(run));
    }
  }

  /** Hands rows this instance holds the lease of to their adapters and records each outcome. */
  async function deliverClaimed(rows: DispatchRow[]): Promise<void> {
    if (rows.length === 0) return;
    const inputs = await outboxInputs(ctx.db, [...new Set(rows.map((r) => r.outboxId))]);
    // an adapter batch holds one event of one tenant: group by outbox row and channel
    const groups = new Map<string, DispatchRow[]>();
    for (const r of rows) {
      const k = `${r.outboxId}:${r.channel}`;
      const group = groups.get(k);
      if (group) group.push(r);
      else groups.set(k, [r]);
    }
    await Promise.all([...groups.values()].map((g) => deliverGroup(g, inputs)));
  }

  /** Delivers every pending row matching `filter` that no one holds; answers how many it took. */
  async function deliverPending(filter: PendingFilter): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await claim(filter);
      if (rows.length === 0) return total;
      total += rows.length;
      await deliverClaimed(rows);
    }
  }

  return {
    deliverPending,
    /**
     * Quiet-hours rows whose window has ended go back to pending, leased to this instance in the
     * same statement: it delivers exactly the rows it released, so a concurrent release on another
     * instance can neither take them twice nor leave them behind. Answers how many it released.
     */
    async deliverDeferred(): Promise<number> {
      const now = ctx.clock();
      const released = await releaseQuietHours(ctx.db, now, new Date(now.getTime() + LEASE_MS));
      await deliverClaimed(released);
      return released.length;
    },
    /** One loop per channel, side by side: a slow channel (SMTP) never holds up a fast one (in-app). */
    async forOutbox(outboxId: number): Promise<number> {
      const channels = await pendingChannels(ctx.db, outboxId);
      const counts = await Promise.all(channels.map((channel) => deliverPending({ outboxId, channel })));
      return counts.reduce((a, b) => a + b, 0);
    },
  };
}
