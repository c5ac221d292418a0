import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../platform/db/client.ts';
import { clientTokenWriter } from './client-token-writer.ts';
import type { ClientTokenRow } from './token-repository.ts';

/** A database whose statements complete when the test says so; it answers every row but `refuse`'s. */
function heldDatabase(refuse = new Set<string>()) {
  const dialect = new PgDialect();
  const statements: { hashes: string[]; complete: () => void; fail: (err: Error) => void }[] = [];
  const db = {
    execute: (query: SQL) => {
      const [json] = dialect.sqlToQuery(query).params as [string];
      const hashes = (JSON.parse(json) as { token_hash: string }[]).map((r) => r.token_hash);
      return new Promise((resolve, reject) => {
        statements.push({
          hashes,
          complete: () => resolve({ rows: hashes.filter((h) => !refuse.has(h)).map((h) => ({ token_hash: h })) }),
          fail: reject,
        });
      });
    },
  } as unknown as Db;
  return { db, statements };
}

const row = (tokenHash: string): ClientTokenRow => ({
  tokenHash,
  appId: 1,
  proof: 'p',
  scopes: ['drive:read'],
  expiresAt: new Date(0),
  now: new Date(0),
});
const settle = () => new Promise((r) => setImmediate(r));

describe('clientTokenWriter', () => {
  it('writes a lone row at once, and the rows that arrive meanwhile together in the next statement', async () => {
    const { db, statements } = heldDatabase();
    const writer = clientTokenWriter(db);
    const first = writer.write(row('a'));
    const rest = ['b', 'c', 'd'].map((h) => writer.write(row(h)));
    await settle();
    expect(statements.map((s) => s.hashes)).toEqual([['a']]);
    statements[0]?.complete();
    expect(await first).toBe(true);
    await settle();
    expect(statements.map((s) => s.hashes)).toEqual([['a'], ['b', 'c', 'd']]);
    statements[1]?.complete();
    expect(await Promise.all(rest)).toEqual([true, true, true]);
  });

  it('answers each row for itself: a row the database refused is false, its neighbours true', async () => {
    const { db, statements } = heldDatabase(new Set(['stale']));
    const writer = clientTokenWriter(db);
    const held = writer.write(row('first'));
    const answers = Promise.all(['ok1', 'stale', 'ok2'].map((h) => writer.write(row(h))));
    await settle();
    statements[0]?.complete();
    await held;
    await settle();
    statements[1]?.complete();
    expect(await answers).toEqual([true, false, true]);
  });

  it('a failed statement fails each of its rows, and the next rows still go', async () => {
    const { db, statements } = heldDatabase();
    const writer = clientTokenWriter(db);
    const held = writer.write(row('a'));
    const failing = [writer.write(row('x')), writer.write(row('y'))];
    await settle();
    statements[0]?.complete();
    await held;
    await settle();
    expect(statements[1]?.hashes).toEqual(['x', 'y']);
    statements[1]?.fail(new Error('connection lost'));
    for (const p of failing) await expect(p).rejects.toThrow('connection lost');
    const after = writer.write(row('z'));
    await settle();
    statements[2]?.complete();
    expect(await after).toBe(true);
  });
});
