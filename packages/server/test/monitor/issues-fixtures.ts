import { randomBytes } from 'node:crypto';
import { errorEvents, errorGroupIdentities, errorGroups } from '../../src/modules/monitor/tables.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import type { TestApp } from '../helpers/app.ts';

/**
 * Issues, events and identities written straight to the tables (the ingest route is another
 * area's and not what these tests are about). Counts on the group are the caller's to keep right.
 */
type GroupValues = Partial<typeof errorGroups.$inferInsert>;
type EventValues = Partial<typeof errorEvents.$inferInsert>;

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

export async function insertGroup(t: TestApp, tenantId: number | null, values: GroupValues = {}): Promise<number> {
  const seen = values.lastSeenAt ?? new Date();
  const [row] = await t.database.db
    .insert(errorGroups)
    .values({
      tenantId: platformKey(tenantId),
      fingerprint: randomBytes(8).toString('hex'),
      environment: 'production',
      type: 'js_error',
      message: 'TypeError: x is undefined',
      normalizedMessage: 'TypeError: x is undefined',
      firstSeenAt: values.firstSeenAt ?? seen,
      lastSeenAt: seen,
      ...values,
    })
    .returning({ id: errorGroups.id });
  if (!row) throw new Error('group insert failed');
  return row.id;
}

/** One event of a group, at `at` (default now); tenant, type and level follow the group's unless given. */
export async function insertEvent(
  t: TestApp,
  group: { id: number; tenantId: number | null },
  at: Date,
  values: EventValues = {},
): Promise<number> {
  const [row] = await t.database.db
    .insert(errorEvents)
    .values({
      tenantId: platformKey(group.tenantId),
      groupId: group.id,
      type: 'js_error',
      level: 'error',
      message: 'TypeError: x is undefined',
      environment: 'production',
      createdAt: at,
      ...values,
    })
    .returning({ id: errorEvents.id });
  if (!row) throw new Error('event insert failed');
  return row.id;
}

export async function insertIdentity(
  t: TestApp,
  group: { id: number; tenantId: number | null },
  identity: string,
  lastSeenAt: Date,
): Promise<void> {
  await t.database.db.insert(errorGroupIdentities).values({
    groupId: group.id,
    tenantId: platformKey(group.tenantId),
    identity,
    firstSeenAt: lastSeenAt,
    lastSeenAt,
  });
}
