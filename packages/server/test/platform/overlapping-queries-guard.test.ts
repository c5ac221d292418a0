import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/platform/db/client.ts';
import { takeOverlappingQueries } from '../setup/overlapping-queries.ts';

/**
 * The gate of test/setup/fail-on-overlapping-queries.ts, on real connections: two queries at once
 * on one client are caught, with where the client was taken; queries in turn, queries on the pool
 * (one connection each) and the query that follows a failed one are not. Each test takes what it
 * caught, so the gate itself passes.
 */
let database: Database;

beforeAll(async () => {
  // read-only statements on the run's server: no database of its own needed
  database = await openDatabase({ url: process.env.TEST_DATABASE_URL as string, kind: 'external', poolMax: 3 });
});

afterAll(async () => {
  await database?.close();
});

describe('two queries at once on one client', () => {
  it('in a transaction (Promise.all over tx) is caught, naming both statements and the code that opened the transaction', async () => {
    const [a, b] = await database.db.transaction((tx) =>
      Promise.all([tx.execute(sql`select 1 as planted_first`), tx.execute(sql`select 2 as planted_second`)]),
    );
    // a `Db` types its raw results as unknown; node-postgres answers a QueryResult
    const rows = (r: unknown) => (r as pg.QueryResult).rows;
    expect([rows(a), rows(b)]).toEqual([[{ planted_first: 1 }], [{ planted_second: 2 }]]);

    const caught = takeOverlappingQueries();
    expect(caught).toHaveLength(1);
    expect(caught[0]).toContain('sent: select 2 as planted_second');
    expect(caught[0]).toContain('still executing: select 1 as planted_first');
    expect(caught[0]).toMatch(/taken from the pool at:[\s\S]*overlapping-queries-guard\.test\.ts/);
  });

  it('on a dedicated client, with callbacks, is caught (two at once, which pg 8 itself lets pass)', async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      const one = (text: string) =>
        new Promise<void>((resolve, reject) =>
          client.query(text, (err: Error | undefined) => (err ? reject(err) : resolve())),
        );
      await Promise.all([one('select 1'), one('select 2')]);
    } finally {
      await client.end();
    }
    const caught = takeOverlappingQueries();
    expect(caught).toHaveLength(1);
    expect(caught[0]).toContain('sent: select 2');
  });
});

describe('what the gate lets through', () => {
  it('queries awaited in turn in a transaction, and Promise.all on the pool', async () => {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await tx.execute(sql`select 2`);
    });
    await Promise.all([database.db.execute(sql`select 1`), database.db.execute(sql`select 2`)]);
    expect(takeOverlappingQueries()).toEqual([]);
  });

  it('the rollback sent as soon as a statement of the transaction failed', async () => {
    // pg rejects a failed statement before the server says it is ready again: the rollback that
    // follows at once is sequential code, not an overlap
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1 / 0`);
      }),
    ).rejects.toMatchObject({ cause: { code: '22012' } }); // division_by_zero
    expect(takeOverlappingQueries()).toEqual([]);
  });
});
