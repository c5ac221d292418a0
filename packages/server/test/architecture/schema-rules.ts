import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TableClass } from './table-classes.ts';

/**
 * The tenant-key rules of docs/architecture.md ("Tables and the tenant key") as checks over a
 * drizzle-kit snapshot: what Citus requires of a table sharded by `tenant_id` (the key in every
 * primary and unique key and in foreign keys between sharded tables, never NULL), and which
 * foreign keys may cross classes. Reading the snapshot, not a database, keeps the check instant.
 */

/** The parts of a drizzle-kit (version 7) PostgreSQL snapshot the rules read. */
export type SnapshotTable = {
  name: string;
  columns: Record<string, { name: string; type: string; primaryKey: boolean; notNull: boolean }>;
  indexes: Record<
    string,
    { name: string; isUnique: boolean; columns: { expression: string; isExpression: boolean }[] }
  >;
  foreignKeys: Record<string, { name: string; tableTo: string; columnsFrom: string[]; columnsTo: string[] }>;
  compositePrimaryKeys: Record<string, { name: string; columns: string[] }>;
  uniqueConstraints: Record<string, { name: string; columns: string[] }>;
};
export type Snapshot = { tables: Record<string, SnapshotTable> };

export type SchemaRuleId =
  | 'unclassified'
  | 'unknown-table'
  | 'tenant-id-missing'
  | 'tenant-id-nullable'
  | 'tenant-id-type'
  | 'tenant-id-without-foreign-key'
  | 'primary-key-not-tenant-led'
  | 'unique-key-not-tenant-led'
  | 'foreign-key-without-tenant'
  | 'referenced-without-tenant-key'
  | 'id-not-bigint'
  | 'reference-points-at-sharded'
  | 'local-linked-to-sharded';

export const SCHEMA_RULES: Record<SchemaRuleId, string> = {
  unclassified: 'every table is in the map of table-classes.ts (sharded, reference or local)',
  'unknown-table': 'every entry of the map names a table of the latest snapshot',
  'tenant-id-missing': 'a sharded table has a tenant_id column',
  'tenant-id-nullable': 'a sharded table’s tenant_id is NOT NULL (Citus refuses NULL in the distribution column)',
  'tenant-id-type': 'tenant_id has the type of tenants.id, so all sharded tables are colocated',
  'tenant-id-without-foreign-key':
    'every tenant_id column, of any table, is a foreign key to tenants (id): the database refuses a row of an unknown tenant',
  'primary-key-not-tenant-led': 'a sharded table’s primary key starts with tenant_id: (tenant_id, id)',
  'unique-key-not-tenant-led':
    'every unique key or unique index of a sharded table starts with the plain column tenant_id',
  'foreign-key-without-tenant': 'a foreign key between sharded tables pairs tenant_id with tenant_id: (tenant_id, x)',
  'referenced-without-tenant-key':
    'a sharded table that a sharded table points at has a key (tenant_id, x) for what it is pointed at by, so the pointer can become (tenant_id, x)',
  'id-not-bigint': 'a sharded table’s id is bigint (bigserial)',
  'reference-points-at-sharded': 'a reference table has no foreign key to a sharded table',
  'local-linked-to-sharded': 'no foreign key joins a local table and a sharded one, either way',
};

/** The rules that today's tables may be excused from; a table must always be in the map. */
export type ExceptableRule = Exclude<SchemaRuleId, 'unclassified' | 'unknown-table'>;
export type SchemaExceptions = Record<ExceptableRule, readonly string[]>;

export type SchemaFinding = { table: string; rule: SchemaRuleId; detail: string };

const BIGINT_TYPES = new Set(['bigint', 'bigserial']);
/** serial columns are integers with a default; what matters is the type two tables compare */
const baseType = (type: string) => ({ serial: 'integer', bigserial: 'bigint', smallserial: 'smallint' })[type] ?? type;

/** The newest `NNNN_snapshot.json`, checked against the journal's last migration. */
export function latestSnapshot(metaDir: string): Snapshot {
  const numbers = readdirSync(metaDir)
    .map((f) => /^(\d{4})_snapshot\.json$/.exec(f)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort();
  const newest = numbers.at(-1);
  const journal = JSON.parse(readFileSync(join(metaDir, '_journal.json'), 'utf8')) as { entries: { idx: number }[] };
  const lastIdx = journal.entries.at(-1)?.idx;
  if (newest === undefined || Number(newest) !== lastIdx) {
    throw new Error(`the newest snapshot (${newest}) is not the journal's last migration (${lastIdx})`);
  }
  return JSON.parse(readFileSync(join(metaDir, `${newest}_snapshot.json`), 'utf8')) as Snapshot;
}

function primaryKeyOf(t: SnapshotTable): string[] | null {
  const composite = Object.values(t.compositePrimaryKeys)[0];
  if (composite) return composite.columns;
  const single = Object.values(t.columns).filter((c) => c.primaryKey);
  return single.length > 0 ? single.map((c) => c.name) : null;
}

/** Unique constraints and unique indexes alike, each as the names (or expressions) of its columns. */
function uniqueKeysOf(t: SnapshotTable): { name: string; leads: boolean; columns: string[] }[] {
  const constraints = Object.values(t.uniqueConstraints).map((u) => ({
    name: u.name,
    leads: u.columns[0] === 'tenant_id',
    columns: u.columns,
  }));
  const indexes = Object.values(t.indexes)
    .filter((i) => i.isUnique)
    .map((i) => ({
      name: i.name,
      // `coalesce("tenant_id", 0)` does not count: Citus needs the column itself
      leads: i.columns[0]?.expression === 'tenant_id',
      columns: i.columns.map((c) => c.expression),
    }));
  return [...constraints, ...indexes];
}

/** Every finding of the rules over a snapshot and a map of classes, one per key that breaks one. */
export function checkSnapshot(snapshot: Snapshot, classes: Readonly<Record<string, TableClass>>): SchemaFinding[] {
  const tables = new Map(Object.values(snapshot.tables).map((t) => [t.name, t]));
  const classOf = (name: string): TableClass | undefined => (Object.hasOwn(classes, name) ? classes[name] : undefined);
  const found: SchemaFinding[] = [];
  const find = (table: string, rule: SchemaRuleId, detail: string) => found.push({ table, rule, detail });

  for (const name of Object.keys(classes)) {
    if (!tables.has(name)) find(name, 'unknown-table', 'in the map, not in the snapshot');
  }
  const tenantIdType = tables.get('tenants')?.columns.id?.type ?? 'serial';

  /** the columns of every primary and unique key of a table, each joined by commas */
  const keysOf = (t: SnapshotTable) =>
    new Set([primaryKeyOf(t), ...uniqueKeysOf(t).map((u) => u.columns)].flatMap((k) => (k ? [k.join(',')] : [])));

  for (const t of tables.values()) {
    const cls = classOf(t.name);
    if (!cls) {
      find(t.name, 'unclassified', 'not in table-classes.ts');
      continue;
    }
    if (t.columns.tenant_id) {
      const pointsAtTenants = Object.values(t.foreignKeys).some(
        (fk) => fk.tableTo === 'tenants' && fk.columnsFrom.join() === 'tenant_id' && fk.columnsTo.join() === 'id',
      );
      if (!pointsAtTenants) find(t.name, 'tenant-id-without-foreign-key', 'no foreign key (tenant_id) → tenants (id)');
    }
    for (const fk of Object.values(t.foreignKeys)) {
      const target = classOf(fk.tableTo);
      const to = `${fk.name}: (${fk.columnsFrom.join(', ')}) → ${fk.tableTo} (${fk.columnsTo.join(', ')})`;
      if (cls === 'reference' && target === 'sharded') find(t.name, 'reference-points-at-sharded', to);
      if ((cls === 'local' && target === 'sharded') || (cls === 'sharded' && target === 'local')) {
        find(t.name, 'local-linked-to-sharded', to);
      }
      if (cls === 'sharded' && target === 'sharded') {
        const paired = fk.columnsFrom.some((c, i) => c === 'tenant_id' && fk.columnsTo[i] === 'tenant_id');
        if (!paired) find(t.name, 'foreign-key-without-tenant', to);
        const referenced = tables.get(fk.tableTo);
        const key = ['tenant_id', ...fk.columnsTo.filter((c) => c !== 'tenant_id')];
        if (referenced && !keysOf(referenced).has(key.join(','))) {
          find(fk.tableTo, 'referenced-without-tenant-key', `no key (${key.join(', ')}) for ${to}`);
        }
      }
    }
    if (cls !== 'sharded') continue;

    const tenantId = t.columns.tenant_id;
    if (!tenantId) find(t.name, 'tenant-id-missing', 'no tenant_id column');
    else {
      if (!tenantId.notNull) find(t.name, 'tenant-id-nullable', 'tenant_id is nullable');
      if (baseType(tenantId.type) !== baseType(tenantIdType)) {
        find(t.name, 'tenant-id-type', `tenant_id is ${tenantId.type}, tenants.id is ${baseType(tenantIdType)}`);
      }
    }
    const pk = primaryKeyOf(t);
    if (pk?.[0] !== 'tenant_id')
      find(t.name, 'primary-key-not-tenant-led', pk ? `(${pk.join(', ')})` : 'no primary key');
    for (const u of uniqueKeysOf(t)) {
      if (!u.leads) find(t.name, 'unique-key-not-tenant-led', `${u.name}: (${u.columns.join(', ')})`);
    }
    const id = t.columns.id;
    if (id && !BIGINT_TYPES.has(id.type)) find(t.name, 'id-not-bigint', `id is ${id.type}`);
  }
  return found;
}

/**
 * Findings against the exception list, which may only shrink: a finding whose (table, rule) is
 * not listed is a new breach; a listed (table, rule) that nothing breaks any more is stale and
 * must be deleted, so a fixed table cannot slip back.
 */
export function compareWithExceptions(findings: SchemaFinding[], exceptions: SchemaExceptions) {
  const listed = new Set(
    Object.entries(exceptions).flatMap(([rule, tables]) => tables.map((table) => `${table} ${rule}`)),
  );
  const broken = new Set(findings.map((f) => `${f.table} ${f.rule}`));
  return {
    unexcepted: findings.filter((f) => !listed.has(`${f.table} ${f.rule}`)),
    stale: [...listed].filter((key) => !broken.has(key)).sort(),
  };
}
