import { eq, inArray } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { pgTable, serial, text } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { ownOrPlatform, PLATFORM_TENANT_ID, platformKey, sameTenantKey, tenantKey } from './tenant-key.ts';

/**
 * Why the platform scope is mapped by functions and not by the column's encoder alone: drizzle
 * never hands a null to a column's encoder, in a comparison or an insert, so a null scope would
 * be sent as NULL. These pin that behaviour of drizzle and what the functions send instead.
 */
const things = pgTable('things', {
  id: serial('id').primaryKey(),
  tenantId: tenantKey('tenant_id'),
  name: text('name'),
});
const db = drizzle.mock();
const params = (q: { toSQL(): { params: unknown[] } }) => q.toSQL().params;
const where = (cond: ReturnType<typeof eq>) => params(db.select().from(things).where(cond));

describe('the tenant key at the database boundary', () => {
  it('reads the platform tenant back as null, a tenant as itself', () => {
    expect(things.tenantId.mapFromDriverValue(0)).toBeNull();
    expect(things.tenantId.mapFromDriverValue(7)).toBe(7);
  });

  it('drizzle sends a null as NULL, past the encoder: eq(column, null) and inserts of null', () => {
    expect(where(eq(things.tenantId, null))).toEqual([null]);
    expect(params(db.insert(things).values({ tenantId: null, name: 'x' }))).toContain(null);
  });

  it('the functions send 0 for the platform scope and the tenant otherwise', () => {
    expect(platformKey(null)).toBe(PLATFORM_TENANT_ID);
    expect(platformKey(7)).toBe(7);
    expect(where(sameTenantKey(things.tenantId, null))).toEqual([0]);
    expect(where(sameTenantKey(things.tenantId, 7))).toEqual([7]);
    expect(where(ownOrPlatform(things.tenantId, 7))).toEqual([7, 0]);
    expect(where(ownOrPlatform(things.tenantId, null))).toEqual([0]);
    expect(where(inArray(things.tenantId, [platformKey(null), 3]))).toEqual([0, 3]);
    expect(params(db.insert(things).values({ tenantId: platformKey(null), name: 'x' }))).toContain(0);
  });
});
