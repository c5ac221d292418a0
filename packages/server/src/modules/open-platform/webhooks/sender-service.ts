import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import { failureText, sendWebhook } from '../../../platform/egress/webhook.ts';
import { signingSecrets } from '../../../platform/egress/webhook-secrets.ts';
import {
  DISABLE_AFTER_FAILING_MS,
  DISABLE_AFTER_FAILURES,
  LEASE_MS,
  nextAttemptAt,
  RESPONSE_EXCERPT_BYTES,
} from './policy.ts';
import * as repo from './sender-repository.ts';
import { secretContexts } from './signing-secrets.ts';
import type { DeliveryRow, SubscriptionRow } from './tables.ts';
import type { WebhookDeps } from './types.ts';

const CLAIM = 50;
/** HTTP calls in flight per claimed batch: a slow receiver holds one slot, not the batch */
const CONCURRENCY = 8;

export type AttemptOutcome = {
  ok: boolean;
  url: string;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
};

export type SenderService = ReturnType<typeof createSenderService>;

/** PostgreSQL text cannot hold NUL; receivers' answers sometimes do. */
const storable = (text: string, max: number) => text.replaceAll('\u0000', '').slice(0, max);

/** The body as sent: fixed key order, whatever order jsonb keeps. */
export function bodyOf(row: Pick<DeliveryRow, 'payload'>): string {
  const p = row.payload;
  return JSON.stringify({ id: p.id, type: p.type, createdAt: p.createdAt, tenantId: p.tenantId, data: p.data });
}

/**
 * Sends deliveries and records what happened. Rows are claimed with a lease (FOR UPDATE SKIP
 * LOCKED, so instances never share a row) and the claim increments `attempts`; the outcome is
 * written only where `attempts` still equals the claimed value, so an instance whose lease ran
 * out and was overtaken cannot overwrite the newer attempt.
 */
export function createSenderService(ctx: AppContext, deps: WebhookDeps) {
  /** Due rows of active subscriptions of active applications that no one holds (`ids`: only those). */
  function claim(ids: number[] | undefined): Promise<DeliveryRow[]> {
    const now = ctx.clock();
    return repo.claimDue(ctx.db, now, new Date(now.getTime() + LEASE_MS), CLAIM, ids);
  }

  /** One HTTP attempt through the kernel's webhook path (signed, egress-guarded). Never throws. */
  async function send(row: DeliveryRow, sub: SubscriptionRow): Promise<AttemptOutcome> {
    const o = await sendWebhook(ctx, {
      url: sub.url,
      secrets: () => signingSecrets(ctx.secrets, sub, secretContexts(sub.id), ctx.clock()),
      eventType: row.eventType,
      eventId: row.eventId,
      deliveryId: String(row.id),
      body: bodyOf(row),
    });
    const excerpt = o.response?.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
    return {
      // every failure is retried on the schedule (docs/webhooks.md), permanent or not
      ok: o.result === 'delivered',
      url: sub.url,
      statusCode: o.status,
      error: failureText(o),
      responseBody: excerpt === undefined ? null : storable(excerpt, RESPONSE_EXCERPT_BYTES),
      durationMs: o.durationMs,
    };
  }

  /** Writes the attempt's outcome (fenced by `attempts`), the subscription's health, maybe its disabling. */
  async function record(row: DeliveryRow, sub: SubscriptionRow, o: AttemptOutcome): Promise<DeliveryRow | null> {
    const now = ctx.clock();
    const next = o.ok ? null : nextAttemptAt(row.attempts, now);
    return ctx.db.transaction(async (tx) => {
      const updated = await repo.recordOutcome(tx, row, {
        status: o.ok ? 'succeeded' : next ? 'pending' : 'failed',
        nextAttemptAt: next,
        lastStatusCode: o.statusCode,
        lastError: o.error === null ? null : storable(o.error, 2000),
        lastDurationMs: o.durationMs,
        deliveredAt: o.ok ? now : null,
      });
      if (!updated) return null;
      await repo.insertAttempt(tx, {
        tenantId: row.tenantId,
        deliveryId: row.id,
        attempt: row.attempts,
        url: o.url,
        statusCode: o.statusCode,
        error: updated.lastError,
        responseBody: o.responseBody,
        durationMs: o.durationMs,
        createdAt: now,
      });
      if (o.ok) await repo.resetFailures(tx, sub.id, now);
      else await countFailure(tx, sub, now, updated.lastError ?? 'failed');
      return updated;
    });
  }

  /** One more failure; past the rule (policy.ts) the subscription is disabled and its owners told. */
  async function countFailure(tx: Db, sub: SubscriptionRow, now: Date, error: string) {
    await repo.countFailure(tx, sub.id, now);
    const disabled = await repo.disableFailing(tx, sub.id, now, {
      failures: DISABLE_AFTER_FAILURES,
      failingSince: new Date(now.getTime() - DISABLE_AFTER_FAILING_MS),
    });
    if (!disabled) return;
    ctx.log.warn({ subscriptionId: sub.id, failures: disabled.consecutiveFailures }, 'webhook subscription disabled');
    const app = disabled.appId ? await repo.appOwner(tx, disabled.appId) : null;
    const userIds = [...new Set([app?.createdBy, disabled.createdBy])].filter((id): id is number => !!id);
    if (userIds.length === 0) return;
    await deps.notifyWithin(tx, 'open-platform.webhook.delivery_failed', {
      tenantId: disabled.tenantId,
      recipients: userIds.map((id) => ({ type: 'user' as const, id })),
      variables: {
        appName: app?.name ?? 'payment center',
        url: disabled.url,
        failures: disabled.consecutiveFailures,
        error,
      },
      link: `/open-platform/webhooks?id=${disabled.id}`,
      idempotencyKey: `webhook-disabled:${disabled.id}:${now.getTime()}`,
    });
  }

  async function subscriptionsOf(rows: DeliveryRow[]): Promise<Map<number, SubscriptionRow>> {
    const subs = await repo.subscriptionsByIds(ctx.db, [...new Set(rows.map((r) => r.subscriptionId))]);
    return new Map(subs.map((x) => [x.id, x]));
  }

  /** Sends rows this instance holds the lease of; answers each recorded row (null: overtaken or gone). */
  async function deliverClaimed(rows: DeliveryRow[]): Promise<(DeliveryRow | null)[]> {
    const subs = await subscriptionsOf(rows);
    const out = new Array<DeliveryRow | null>(rows.length).fill(null);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < rows.length; i = next++) {
        const row = rows[i] as DeliveryRow;
        const sub = subs.get(row.subscriptionId);
        if (!sub) continue; // deleted meanwhile: its deliveries went with it
        const outcome = await send(row, sub);
        try {
          out[i] = await record(row, sub, outcome);
        } catch (err) {
          // the row stays leased: once the lease ends the sweeper sends it again
          ctx.log.error({ err, deliveryId: row.id }, 'webhook delivery outcome could not be recorded');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, rows.length) }, worker));
    return out;
  }

  /**
   * Claims and sends due rows (`ids`: only those deliveries) until none is left or `budgetMs` has
   * passed (the next sweep continues); answers how many it sent.
   */
  async function deliverDue(ids?: number[], budgetMs = 45_000): Promise<number> {
    const started = performance.now();
    let total = 0;
    while (performance.now() - started < budgetMs) {
      const rows = await claim(ids);
      if (rows.length === 0) break;
      total += rows.length;
      await deliverClaimed(rows);
    }
    return total;
  }

  return { deliverDue, deliverClaimed };
}
