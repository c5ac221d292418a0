import type { FastifyBaseLogger } from 'fastify';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { dependencyDown } from '../../../platform/health/dependency-down.ts';
import type { AdapterRegistry } from '../adapters.ts';
import type { ChannelAck, ChannelCode, ChannelNotice, InboundCallback } from '../channels/types.ts';
import type { ChannelConfigService } from '../configs/configs-service.ts';
import type { ChannelConfigRow } from '../configs/repository.ts';
import { paymentErrors } from '../errors.ts';
import type { ApplyResult, ApplyService } from '../orders/apply-service.ts';
import { findOrder, findRefundByNo } from '../orders/repository.ts';
import { headerDigest, storedBody } from './headers.ts';
import {
  findNotifyLog,
  insertNotifyLog,
  type NotifyLogFilter,
  type NotifyLogInsert,
  type NotifyLogRow,
  pageNotifyLogs,
  purgeNotifyLogs,
} from './repository.ts';

export type InboundNotify = {
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  ip: string;
};

/** The log's `result`: what became of a callback. */
export type NotifyResult = ApplyResult['outcome'] | 'invalid_signature' | 'error';

const MAX_MESSAGE = 2000;
/** How long callback rows are kept (docs/decisions/0021: a daily delete; 90 days). */
export const NOTIFY_LOG_RETENTION_DAYS = 90;

/**
 * Channel callbacks (issue 16 item 3, spec §3.2): verified against every enabled configuration
 * of the channel across tenants (the callback names no tenant; configurations naming the
 * callback's merchant are tried first), applied through applyNotice in the verifying
 * configuration's tenant, acknowledged in the channel's own shape, and logged once each —
 * whatever happened, so the log is where an operator sees every callback.
 */
export function createNotifyService(deps: {
  db: Db;
  clock: () => Date;
  configs: ChannelConfigService;
  adapters: AdapterRegistry;
  apply: ApplyService;
  log: FastifyBaseLogger;
}) {
  const { db, clock, configs, adapters, apply } = deps;

  function toNotifyLogView(row: NotifyLogRow, withBody: boolean) {
    const { rawBody, headers, ...rest } = row;
    return { ...rest, ...(withBody ? { rawBody, headers } : {}) };
  }

  /** Configurations naming the callback's merchant first (fewer RSA verifications), then the rest. */
  function ordered(rows: ChannelConfigRow[], channel: ChannelCode, rawBody: Buffer): ChannelConfigRow[] {
    const traits = adapters.get(channel)?.traits;
    const merchant = traits?.merchantOf?.(rawBody) ?? null;
    if (!merchant || !traits?.configMerchant) return rows;
    const mine = (r: ChannelConfigRow) => traits.configMerchant?.(r.fields) === merchant;
    return [...rows.filter(mine), ...rows.filter((r) => !mine(r))];
  }

  /**
   * What the channel said, made applicable: channel_c's refund notice may name the refund only
   * (orderNo from our refund row); channel_b's refund notice carries the trade's total refunded,
   * so the refund itself is queried for its own amount and state.
   */
  async function applicable(row: ChannelConfigRow, notice: ChannelNotice): Promise<ChannelNotice> {
    if (notice.scene !== 'refund' || !notice.refundNo) return notice;
    const scope = { tenantId: row.tenantId };
    const refund = await findRefundByNo(db, scope, notice.refundNo);
    if (!refund) return notice; // applyNotice answers not_found
    const order = await findOrder(db, scope, refund.orderId);
    const withOrder = notice.orderNo ? notice : { ...notice, orderNo: order?.orderNo ?? '' };
    const entry = adapters.get(row.channel);
    if (!entry?.traits.refundByQuery) return withOrder;
    const { adapter, config } = openConfig(row);
    const queried = await adapter.queryRefund(config, {
      orderNo: withOrder.orderNo,
      refundNo: refund.refundNo,
      createdAt: refund.createdAt,
    });
    if (!queried) throw new Error(`the channel does not know refund ${refund.refundNo} it notified`);
    return queried;
  }

  function openConfig(row: ChannelConfigRow) {
    const entry = adapters.get(row.channel);
    if (!entry) throw paymentErrors.channelUnavailable(row.channel);
    const config = entry.toConfig({
      configId: row.id,
      tenantId: row.tenantId,
      fields: row.fields,
      secrets: configs.openSecrets(row),
      notifyUrl: configs.effectiveNotifyUrl(row),
    });
    return { adapter: entry.adapter, config };
  }

  async function writeLog(values: NotifyLogInsert): Promise<void> {
    try {
      await insertNotifyLog(db, { ...values, message: values.message?.slice(0, MAX_MESSAGE) ?? '' });
    } catch (err) {
      // the answer still goes out: a lost log row must not make the channel resend an applied notice
      deps.log.error({ err, channel: values.channel, orderNo: values.orderNo }, 'payment notify log not written');
    }
  }

  return {
    /**
     * Verifies, applies and logs one callback; answers the acknowledgement to send. While the
     * database (or another dependency) is down it answers the channel's failure, as a 503 where
     * the failure is a 5xx, naming no address: the channel resends (issue 27).
     */
    async receive(channel: ChannelCode, input: InboundNotify): Promise<ChannelAck> {
      const entry = adapters.get(channel);
      if (!entry) throw paymentErrors.channelUnavailable(channel);
      const { adapter } = entry;
      const now = clock();
      const base = {
        channel,
        rawBody: storedBody(input.rawBody),
        headers: headerDigest(input.headers),
        ip: input.ip,
        createdAt: now,
      };
      const inbound: InboundCallback = {
        rawBody: input.rawBody,
        headers: Object.fromEntries(
          Object.entries(input.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v]),
        ),
      };
      const reasons: string[] = [];
      let firstMiss: { row: ChannelConfigRow; notice: ChannelNotice; result: ApplyResult } | null = null;
      // the configuration that verified, for the log of a processing error
      let verified: ChannelConfigRow | null = null;
      try {
        const rows = ordered(await configs.activeAcrossTenants(channel), channel, input.rawBody);
        for (const row of rows) {
          if (row.tenantId === null) continue; // orders belong to tenants: a platform configuration holds none
          let verdict: Awaited<ReturnType<typeof adapter.verifyCallback>>;
          try {
            verdict = await adapter.verifyCallback(openConfig(row).config, inbound, now);
          } catch (err) {
            verdict = { valid: false, reason: `configuration unusable: ${(err as Error).message}` };
          }
          if (!verdict.valid) {
            reasons.push(`config ${row.id}: ${verdict.reason}`);
            continue;
          }
          verified = row;
          const notice = await applicable(row, verdict.notice);
          const result = await apply.applyNotice({ tenantId: row.tenantId }, notice);
          // one merchant configured in two tenants: the order is in one of them
          if (result.outcome === 'not_found') {
            firstMiss ??= { row, notice, result };
            continue;
          }
          await writeLog({ ...base, ...logOf(row, notice, result) });
          if (result.outcome === 'amount_mismatch')
            deps.log.warn({ channel, orderNo: notice.orderNo, message: result.message }, 'payment amount mismatch');
          return adapter.ack.success;
        }
      } catch (err) {
        if (dependencyDown(err)) {
          // nothing was applied; the channel resends on its own schedule and the resend is applied once
          deps.log.warn({ channel, error: err.message }, 'payment notify refused: a dependency is down');
          const ack = adapter.ack.failure(OUTAGE_MESSAGE);
          return ack.status >= 500 ? { ...ack, status: 503 } : ack;
        }
        const message = err instanceof Error ? err.message : String(err);
        deps.log.error({ err, channel }, 'payment notify processing failed');
        await writeLog({
          ...base,
          tenantId: verified?.tenantId ?? null,
          configId: verified?.id ?? null,
          signatureValid: verified !== null,
          result: 'error',
          message,
        });
        return adapter.ack.failure(message);
      }
      if (firstMiss) {
        // a genuine callback for an order no tenant has: logged for an operator; resending cannot help
        await writeLog({ ...base, ...logOf(firstMiss.row, firstMiss.notice, firstMiss.result) });
        return adapter.ack.success;
      }
      const message = reasons.length ? reasons.join('; ') : `no enabled configuration of ${channel}`;
      await writeLog({ ...base, tenantId: null, signatureValid: false, result: 'invalid_signature', message });
      return { ...adapter.ack.failure('signature verification failed'), status: 401 };
    },

    /** The daily retention sweep (payment.purgeNotifyLogs). */
    async purgeExpired(): Promise<{ deleted: number }> {
      const before = new Date(clock().getTime() - NOTIFY_LOG_RETENTION_DAYS * 86_400_000);
      return { deleted: await purgeNotifyLogs(db, before) };
    },

    list: async (scope: Scope, q: PageRequest & NotifyLogFilter) => {
      const page = await pageNotifyLogs(db, scope, q);
      return { ...page, list: page.list.map((r) => toNotifyLogView(r, false)) };
    },

    async get(scope: Scope, id: number) {
      const row = await findNotifyLog(db, scope, id);
      if (!row) throw paymentErrors.notifyLogNotFound();
      return toNotifyLogView(row, true);
    },
  };
}

function logOf(row: ChannelConfigRow, notice: ChannelNotice, result: ApplyResult) {
  return {
    tenantId: row.tenantId,
    configId: row.id,
    scene: notice.scene,
    orderNo: notice.orderNo || null,
    signatureValid: true,
    result: result.outcome satisfies NotifyResult,
    message: result.message,
  };
}

export type NotifyService = ReturnType<typeof createNotifyService>;

/** The failure acknowledgement's words while a dependency is down (channel_a takes 64 characters). */
const OUTAGE_MESSAGE = 'service temporarily unavailable, resend later';
