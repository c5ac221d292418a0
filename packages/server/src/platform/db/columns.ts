import { timestamp } from 'drizzle-orm/pg-core';

/** Column helpers every module's tables share: times are always `timestamptz` (RFC 3339 UTC on the wire). */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true });
export const createdAt = () => timestamptz('created_at').notNull().defaultNow();
export const updatedAt = () => timestamptz('updated_at').notNull().defaultNow();
