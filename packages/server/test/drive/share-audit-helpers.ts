import { driveShareAccessLogs, type ShareAccessEvent } from '../../src/modules/drive/tables.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import type { TestApp } from '../helpers/app.ts';

/** Helpers of the share-audit tests: access records written as link-access `log` writes them, at a chosen time. */
export const DAY = 86_400_000;
export const daysAgo = (days: number, from = new Date()) => new Date(from.getTime() - days * DAY);

export async function accessRecord(
  t: TestApp,
  link: { id: number; tenantId: number | null },
  event: ShareAccessEvent,
  opts: { ip?: string; userAgent?: string | null; nodeId?: number | null; at?: Date; detail?: object } = {},
) {
  const [row] = await t.database.db
    .insert(driveShareAccessLogs)
    .values({
      tenantId: platformKey(link.tenantId),
      linkId: link.id,
      nodeId: opts.nodeId ?? null,
      event,
      ip: opts.ip ?? '203.0.113.7',
      userAgent: opts.userAgent === undefined ? 'Mozilla/5.0' : opts.userAgent,
      detail: (opts.detail ?? {}) as Record<string, unknown>,
      createdAt: opts.at ?? new Date(),
    })
    .returning();
  if (!row) throw new Error('access record insert failed');
  return row;
}
