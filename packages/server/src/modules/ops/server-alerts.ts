import os from 'node:os';
import type { AppContext } from '../../platform/context.ts';
import type { Notifier } from '../messaging/index.ts';
import { serverSnapshot } from './server-monitor.ts';
import type { OpsSettings } from './settings.ts';

export type AlertDeps = {
  notify: Notifier['notify'];
  /** who server and licence alerts go to */
  platformAdmins: () => Promise<number[]>;
};

/** How long "this metric is above its threshold" is remembered without a check that says so. */
const ABOVE_TTL_SECONDS = 7 * 86_400;

/**
 * Compares this instance's CPU, memory and disk with the thresholds of the `ops` settings and
 * alerts the platform administrators (ops.monitor.alert) when a metric crosses its threshold
 * upward: once per crossing, not at every check. "Above" is remembered in the shared cache per
 * host and metric, and forgotten when the metric falls back below (or its threshold is off).
 */
export async function checkServerThresholds(ctx: AppContext, deps: AlertDeps) {
  const limits = await ctx.settings.effective<OpsSettings>('ops', null);
  const watched = [
    { metric: 'cpu', threshold: limits.cpuAlertPercent },
    { metric: 'memory', threshold: limits.memoryAlertPercent },
    { metric: 'disk', threshold: limits.diskAlertPercent },
  ];
  if (watched.every((w) => w.threshold === 0)) return { alerts: 0 };
  const snap = await serverSnapshot(ctx);
  const value: Record<string, number> = {
    cpu: snap.cpu.usagePercent,
    memory: snap.memory.usedPercent,
    disk: snap.disk.usedPercent,
  };
  const host = os.hostname();
  let alerts = 0;
  for (const { metric, threshold } of watched) {
    const key = `ops:server-alert:${host}:${metric}`;
    const current = value[metric] as number;
    if (threshold === 0 || current < threshold) {
      await ctx.cache.del(key);
      continue;
    }
    if (await ctx.cache.get(key)) continue;
    await ctx.cache.set(key, String(current), ABOVE_TTL_SECONDS);
    await deps.notify('ops.monitor.alert', {
      tenantId: null,
      recipients: await adminRecipients(deps),
      variables: { host, metric, value: `${current}%`, threshold: `${threshold}%`, level: 'critical' },
      link: '/monitor/server',
    });
    alerts++;
  }
  return { alerts };
}

/** Spec §6.2 ops.monitor.alert_test: checks the alert channels; only the administrator who asks gets it. */
export function sendTestAlert(deps: AlertDeps, to: { tenantId: number | null; userId: number }) {
  return deps.notify('ops.monitor.alert_test', {
    tenantId: to.tenantId,
    recipients: [{ type: 'user', id: to.userId }],
    variables: { host: os.hostname() },
  });
}

/** The platform administrators as notification recipients. */
export async function adminRecipients(deps: AlertDeps) {
  return (await deps.platformAdmins()).map((id) => ({ type: 'user' as const, id }));
}
