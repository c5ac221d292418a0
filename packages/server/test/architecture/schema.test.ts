import { join } from 'node:path';
import { generateDrizzleJson } from 'drizzle-kit/api';
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  foreignKey,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { SCHEMA_EXCEPTIONS } from './schema-exceptions.ts';
import {
  checkSnapshot,
  compareWithExceptions,
  type ExceptableRule,
  latestSnapshot,
  SCHEMA_RULES,
  type SchemaExceptions,
  type SchemaRuleId,
  type Snapshot,
} from './schema-rules.ts';
import { TABLE_CLASSES, type TableClass } from './table-classes.ts';

const meta = join(import.meta.dirname, '../../src/migrations/meta');

describe('schema: every table of the latest migration meets the tenant-key rules of its class', () => {
  const { unexcepted, stale } = compareWithExceptions(
    checkSnapshot(latestSnapshot(meta), TABLE_CLASSES),
    SCHEMA_EXCEPTIONS,
  );

  it('holds for every table, apart from the listed exceptions (docs/architecture.md, "Tables and the tenant key")', () => {
    const report = unexcepted.map((f) => `${f.table}: ${SCHEMA_RULES[f.rule]}\n    ${f.detail}`);
    expect(report).toEqual([]);
  });

  it('lists no exception that is no longer needed (delete these from schema-exceptions.ts)', () => {
    expect(stale).toEqual([]);
  });
});

// The checks are only worth what they catch: tables written as a tables.ts would write them,
// turned into a snapshot by drizzle-kit itself, each breaking one rule of the model below.
const tenants = pgTable('tenants', { id: serial('id').primaryKey() });
/** the model of a new sharded table: (tenant_id, id) with a bigint id, unique keys led by tenant_id */
const parent = pgTable(
  'parent',
  {
    tenantId: integer('tenant_id')
      .notNull()
      .references(() => tenants.id),
    id: bigserial('id', { mode: 'number' }).notNull(),
    code: text('code').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), unique('parent_code').on(t.tenantId, t.code)],
);
/** a reference table: its own key, and tenant_id (the owner of a row, 0 for the platform) pointing at tenants */
const catalogue = pgTable('catalogue', {
  id: serial('id').primaryKey(),
  tenantId: integer('tenant_id').references(() => tenants.id),
});
const mark = pgTable('mark', {
  key: text('key').primaryKey(),
  catalogueId: integer('catalogue_id').references(() => catalogue.id),
});
/** a sharded table pointing at a sharded one with (tenant_id, x) and at a reference table */
const child = pgTable(
  'child',
  {
    tenantId: integer('tenant_id')
      .notNull()
      .references(() => tenants.id),
    id: bigserial('id', { mode: 'number' }).notNull(),
    parentId: bigint('parent_id', { mode: 'number' }).notNull(),
    catalogueId: integer('catalogue_id').references(() => catalogue.id),
    name: text('name').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('child_name').on(t.tenantId, t.parentId, t.name),
    foreignKey({ columns: [t.tenantId, t.parentId], foreignColumns: [parent.tenantId, parent.id] }),
  ],
);
const catalogueItem = pgTable('catalogue_item', {
  id: serial('id').primaryKey(),
  catalogueId: integer('catalogue_id').references(() => catalogue.id),
});
const model = { tenants, parent, catalogue, mark, child, catalogueItem };
const modelClasses: Record<string, TableClass> = {
  tenants: 'reference',
  parent: 'sharded',
  catalogue: 'reference',
  mark: 'local',
  child: 'sharded',
  catalogue_item: 'reference',
};

function check(planted: Record<string, unknown>, classes: Record<string, TableClass>) {
  const snapshot = generateDrizzleJson({ ...model, ...planted }) as unknown as Snapshot;
  return checkSnapshot(snapshot, { ...modelClasses, ...classes }).map((f) => [f.table, f.rule]);
}

/** the columns of a sharded table as the model has them; each case below changes one column or key */
const shardedColumns = () => ({
  tenantId: integer('tenant_id')
    .notNull()
    .references(() => tenants.id),
  id: bigserial('id', { mode: 'number' }).notNull(),
  code: text('code').notNull(),
});

describe('schema checks catch each breach', () => {
  it('pass a set of tables built to the rules: the model a new table follows', () => {
    expect(check({}, {})).toEqual([]);
  });

  const cases: [string, () => Record<string, unknown>, Record<string, TableClass>, SchemaRuleId[]][] = [
    [
      'a table missing from the map',
      () => ({ stray: pgTable('stray', { id: serial('id').primaryKey() }) }),
      {},
      ['unclassified'],
    ],
    ['a map entry for a table that no longer exists', () => ({}), { gone: 'sharded' }, ['unknown-table']],
    [
      'a sharded table without tenant_id (its key cannot start with it either)',
      () => ({ planted: pgTable('planted', { id: bigserial('id', { mode: 'number' }).primaryKey() }) }),
      { planted: 'sharded' },
      ['tenant-id-missing', 'primary-key-not-tenant-led'],
    ],
    [
      'a nullable tenant_id',
      () => ({
        planted: pgTable(
          'planted',
          { ...shardedColumns(), tenantId: integer('tenant_id').references(() => tenants.id) },
          (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
        ),
      }),
      { planted: 'sharded' },
      ['tenant-id-nullable'],
    ],
    [
      'a tenant_id of another type than tenants.id',
      () => ({
        planted: pgTable(
          'planted',
          {
            ...shardedColumns(),
            tenantId: bigint('tenant_id', { mode: 'number' })
              .notNull()
              .references(() => tenants.id),
          },
          (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
        ),
      }),
      { planted: 'sharded' },
      ['tenant-id-type'],
    ],
    [
      'a sharded tenant_id that is not a foreign key to tenants',
      () => ({
        planted: pgTable('planted', { ...shardedColumns(), tenantId: integer('tenant_id').notNull() }, (t) => [
          primaryKey({ columns: [t.tenantId, t.id] }),
        ]),
      }),
      { planted: 'sharded' },
      ['tenant-id-without-foreign-key'],
    ],
    [
      'a reference table’s tenant_id that is not a foreign key to tenants',
      () => ({ planted: pgTable('planted', { id: serial('id').primaryKey(), tenantId: integer('tenant_id') }) }),
      { planted: 'reference' },
      ['tenant-id-without-foreign-key'],
    ],
    [
      'a foreign key to tenant_id and another column that no key of the table pointed at covers',
      () => {
        const planted = pgTable('planted', shardedColumns(), (t) => [primaryKey({ columns: [t.tenantId, t.id] })]);
        const pointer = pgTable('pointer', { ...shardedColumns(), plantedCode: text('planted_code') }, (t) => [
          primaryKey({ columns: [t.tenantId, t.id] }),
          foreignKey({ columns: [t.tenantId, t.plantedCode], foreignColumns: [planted.tenantId, planted.code] }),
        ]);
        return { planted, pointer };
      },
      { planted: 'sharded', pointer: 'sharded' },
      ['referenced-without-tenant-key'],
    ],
    [
      'a primary key of the id alone',
      () => ({
        planted: pgTable('planted', { ...shardedColumns(), id: bigserial('id', { mode: 'number' }).primaryKey() }),
      }),
      { planted: 'sharded' },
      ['primary-key-not-tenant-led'],
    ],
    [
      'a primary key with tenant_id second',
      () => ({ planted: pgTable('planted', shardedColumns(), (t) => [primaryKey({ columns: [t.id, t.tenantId] })]) }),
      { planted: 'sharded' },
      ['primary-key-not-tenant-led'],
    ],
    [
      'a unique constraint with tenant_id second',
      () => ({
        planted: pgTable('planted', shardedColumns(), (t) => [
          primaryKey({ columns: [t.tenantId, t.id] }),
          unique('planted_code').on(t.code, t.tenantId),
        ]),
      }),
      { planted: 'sharded' },
      ['unique-key-not-tenant-led'],
    ],
    [
      'a unique index without tenant_id',
      () => ({
        planted: pgTable('planted', shardedColumns(), (t) => [
          primaryKey({ columns: [t.tenantId, t.id] }),
          uniqueIndex('planted_code').on(t.code),
        ]),
      }),
      { planted: 'sharded' },
      ['unique-key-not-tenant-led'],
    ],
    [
      'a unique index led by coalesce(tenant_id, 0), not the column',
      () => ({
        planted: pgTable('planted', shardedColumns(), (t) => [
          primaryKey({ columns: [t.tenantId, t.id] }),
          uniqueIndex('planted_code').on(sql`coalesce(${t.tenantId}, 0)`, t.code),
        ]),
      }),
      { planted: 'sharded' },
      ['unique-key-not-tenant-led'],
    ],
    [
      'a foreign key to a sharded table by id alone',
      () => ({
        planted: pgTable(
          'planted',
          { ...shardedColumns(), parentId: bigint('parent_id', { mode: 'number' }).references(() => parent.id) },
          (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
        ),
      }),
      { planted: 'sharded' },
      ['foreign-key-without-tenant'],
    ],
    [
      'a foreign key that pairs tenant_id with another column',
      () => ({
        planted: pgTable('planted', { ...shardedColumns(), parentId: bigint('parent_id', { mode: 'number' }) }, (t) => [
          primaryKey({ columns: [t.tenantId, t.id] }),
          foreignKey({ columns: [t.parentId, t.tenantId], foreignColumns: [parent.tenantId, parent.id] }),
        ]),
      }),
      { planted: 'sharded' },
      ['foreign-key-without-tenant'],
    ],
    [
      'an integer id',
      () => ({
        planted: pgTable('planted', { ...shardedColumns(), id: serial('id').notNull() }, (t) => [
          primaryKey({ columns: [t.tenantId, t.id] }),
        ]),
      }),
      { planted: 'sharded' },
      ['id-not-bigint'],
    ],
    [
      'a reference table pointing at a sharded one',
      () => ({
        planted: pgTable('planted', {
          id: serial('id').primaryKey(),
          parentId: bigint('parent_id', { mode: 'number' }).references(() => parent.id),
        }),
      }),
      { planted: 'reference' },
      ['reference-points-at-sharded'],
    ],
    [
      'a local table pointing at a sharded one',
      () => ({
        planted: pgTable('planted', {
          key: text('key').primaryKey(),
          parentId: bigint('parent_id', { mode: 'number' }).references(() => parent.id),
        }),
      }),
      { planted: 'local' },
      ['local-linked-to-sharded'],
    ],
    [
      'a sharded table pointing at a local one',
      () => ({
        planted: pgTable(
          'planted',
          { ...shardedColumns(), markKey: text('mark_key').references(() => mark.key) },
          (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
        ),
      }),
      { planted: 'sharded' },
      ['local-linked-to-sharded'],
    ],
  ];
  it.each(cases)('%s', (_name, planted, classes, rules) => {
    const table = Object.keys(classes)[0] ?? 'stray';
    expect(check(planted(), classes)).toEqual(rules.map((rule) => [table, rule]));
  });

  it('every rule is shown failing above', () => {
    const shown = new Set(cases.flatMap(([, , , rules]) => rules));
    expect(Object.keys(SCHEMA_RULES).filter((r) => !shown.has(r as SchemaRuleId))).toEqual([]);
  });
});

describe('the exception list may only shrink', () => {
  const none = Object.fromEntries(
    Object.keys(SCHEMA_RULES)
      .filter((r) => r !== 'unclassified' && r !== 'unknown-table')
      .map((r) => [r, []]),
  ) as unknown as SchemaExceptions;
  const listing = (rule: ExceptableRule, tables: string[]): SchemaExceptions => ({ ...none, [rule]: tables });
  const breach = { table: 'orders', rule: 'id-not-bigint' as const, detail: 'id is serial' };

  it('a breach that is listed passes', () => {
    expect(compareWithExceptions([breach], listing('id-not-bigint', ['orders']))).toEqual({
      unexcepted: [],
      stale: [],
    });
  });

  it('a breach that is not listed fails, even when the table is listed under another rule', () => {
    expect(compareWithExceptions([breach], listing('tenant-id-nullable', ['orders']))).toEqual({
      unexcepted: [breach],
      stale: ['orders tenant-id-nullable'],
    });
  });

  it('a listed exception that nothing breaks any more fails', () => {
    expect(compareWithExceptions([], listing('id-not-bigint', ['orders'])).stale).toEqual(['orders id-not-bigint']);
  });
});
