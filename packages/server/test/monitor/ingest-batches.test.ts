import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReportWriter } from '../../src/modules/monitor/ingest/report-writer.ts';
import { addIdentities, type Occurrence, recordBatch } from '../../src/modules/monitor/ingest/repository.ts';
import { errorEvents, errorGroupIdentities, errorGroups } from '../../src/modules/monitor/tables.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { jsError, report } from './ingest-helpers.ts';

/**
 * Reports are written in batches (group commit): each report of a batch must come out as if
 * written alone, and batches written at the same moment must not disturb each other.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const db = () => t.database.db;
let seq = 0;
function occurrence(fingerprint: string, o: Partial<Occurrence> = {}): Occurrence {
  const message = `batched ${fingerprint}`;
  return {
    tenantId: null,
    fingerprint: `batch-${process.pid}-${fingerprint}`,
    environment: 'production',
    type: 'js_error',
    level: 'error',
    message,
    normalizedMessage: message,
    topFrame: 'f (https://x.example/a.js:1:1)',
    sourceFile: 'https://x.example/a.js',
    release: '',
    stack: '',
    sourceUrl: '',
    pageUrl: 'https://x.example/',
    breadcrumbs: [{ type: 'click', message: `b${++seq}` }],
    context: { seq },
    http: null,
    replayId: null,
    userAgent: '',
    browser: '',
    os: '',
    identity: null,
    ip: '10.0.0.1',
    at: new Date(Date.UTC(2026, 10, 24, 3, 0, 0, seq)),
    ...o,
  };
}

describe('report batches', () => {
  it('counts, identities, first texts, last release and new flags come out as one by one', async () => {
    const write = async (os: Occurrence[]) => {
      const { recorded, newIdentities } = await recordBatch(db(), os);
      if (newIdentities.length) await addIdentities(db(), newIdentities);
      return recorded;
    };
    const list = [
      occurrence('warm'),
      occurrence('a', { identity: 'a:1', release: '1.0', message: 'first a' }),
      occurrence('a', { identity: 'a:2', release: '' }),
      occurrence('b', { identity: 'a:1' }),
      occurrence('a', { identity: 'a:1', release: '1.1', message: 'later a' }),
      occurrence('a', { identity: null, release: '' }),
      occurrence('b', { identity: 'a:1' }),
      occurrence('c', { http: { method: 'GET', url: 'https://x.example/api', status: 500 } }),
      occurrence('a', { identity: 'a:3' }),
      occurrence('b', { identity: 'a:2' }),
      occurrence('c'),
      occurrence('a', { identity: 'a:2' }),
    ];
    const results = await write(list);

    const ids = results.map((r) => r.eventId);
    expect(new Set(ids).size).toBe(list.length);
    expect([...ids].sort((x, y) => x - y)).toEqual(ids); // events numbered in report order
    const groupOf = (fp: string) => results[list.findIndex((o) => o.fingerprint.endsWith(`-${fp}`))]?.groupId;
    for (const [i, o] of list.entries())
      expect(results[i]?.groupId).toBe(groupOf(o.fingerprint.split('-').pop() ?? ''));
    // exactly the first report of each new issue is new
    expect(results.map((r) => r.isNew)).toEqual([
      true,
      true,
      false,
      true,
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      false,
    ]);

    const groups = await db()
      .select()
      .from(errorGroups)
      .where(inArray(errorGroups.id, [groupOf('a'), groupOf('b'), groupOf('c')] as number[]));
    const a = groups.find((g) => g.id === groupOf('a'));
    expect(a).toMatchObject({
      eventCount: 6,
      identityCount: 3,
      message: 'first a',
      firstRelease: '1.0',
      lastRelease: '1.1',
    });
    expect(a?.firstSeenAt).toEqual(list[1]?.at);
    expect(a?.lastSeenAt).toEqual(list[11]?.at);
    expect(groups.find((g) => g.id === groupOf('b'))).toMatchObject({ eventCount: 3, identityCount: 2 });
    expect(groups.find((g) => g.id === groupOf('c'))).toMatchObject({ eventCount: 2, identityCount: 0 });

    const identities = await db()
      .select()
      .from(errorGroupIdentities)
      .where(eq(errorGroupIdentities.groupId, groupOf('a') as number));
    expect(identities.map((i) => i.identity).sort()).toEqual(['a:1', 'a:2', 'a:3']);
    // each identity keeps the time of its latest report
    expect(identities.find((i) => i.identity === 'a:1')?.lastSeenAt).toEqual(list[4]?.at);

    const [withHttp] = await db()
      .select()
      .from(errorEvents)
      .where(eq(errorEvents.id, results[7]?.eventId as number));
    expect(withHttp).toMatchObject({
      http: { method: 'GET', url: 'https://x.example/api', status: 500 },
      breadcrumbs: list[7]?.breadcrumbs,
      context: list[7]?.context,
    });

    // the next batch adds to the same issues: a known identity is not counted again
    const more = await write([
      occurrence('warm'),
      occurrence('a', { identity: 'a:1', release: '' }),
      occurrence('a', { identity: 'a:4' }),
    ]);
    expect(more.map((r) => r.isNew)).toEqual([false, false, false]);
    const [after] = await db()
      .select()
      .from(errorGroups)
      .where(eq(errorGroups.id, groupOf('a') as number));
    expect(after).toMatchObject({ eventCount: 8, identityCount: 4, lastRelease: '1.1' });
  });

  it('batches written at once count a new identity once and keep its latest time', async () => {
    const writer = createReportWriter(db(), t.app.ctx.log);
    // each of these can be in a batch of its own, written while the others are: none sees the
    // identity recorded, so every batch tries to add it
    const list = Array.from({ length: 6 }, () => occurrence('race', { identity: 'a:racer' }));
    const results = await Promise.all(list.map((o) => writer.record(o)));
    const groupId = results[0]?.groupId as number;
    expect(new Set(results.map((r) => r.groupId))).toEqual(new Set([groupId]));
    expect(results.filter((r) => r.isNew)).toHaveLength(1);
    const [group] = await db().select().from(errorGroups).where(eq(errorGroups.id, groupId));
    expect(group).toMatchObject({ eventCount: 6, identityCount: 1 });
    const ids = await db().select().from(errorGroupIdentities).where(eq(errorGroupIdentities.groupId, groupId));
    expect(ids.map((i) => [i.identity, i.lastSeenAt])).toEqual([['a:racer', list[5]?.at]]);
  });

  it('a report the database refuses fails alone; the rest of its batch is stored', async () => {
    const writer = createReportWriter(db(), t.app.ctx.log);
    const list = [
      occurrence('lead'),
      occurrence('ok-1'),
      occurrence('bad', { tenantId: 2 ** 31 }), // past the integer column: the batch statement is refused
      occurrence('ok-2'),
    ];
    const settled = await Promise.allSettled(list.map((o) => writer.record(o)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const stored = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.eventId] : []));
    expect(await db().select().from(errorEvents).where(inArray(errorEvents.id, stored))).toHaveLength(3);
    const bad = await db()
      .select()
      .from(errorGroups)
      .where(eq(errorGroups.fingerprint, list[2]?.fingerprint as string));
    expect(bad).toEqual([]);
  });
});

describe('truncation', () => {
  it('never splits an emoji in two at a limit, in text or in jsonb columns', async () => {
    const emoji = '\u{1F600}';
    const res = await report(
      t,
      jsError(`${'m'.repeat(1999)}${emoji}`, 'f', {
        breadcrumbs: [{ type: 'click', message: `${'b'.repeat(999)}${emoji}`, timestamp: 1 }],
        http: { method: 'GET', url: `https://x.example/${'u'.repeat(493)}${emoji}`, status: 500 },
      }),
    );
    expect(res.statusCode, res.body).toBe(202);
    const [event] = await db()
      .select()
      .from(errorEvents)
      .where(eq(errorEvents.id, res.json().data.eventId as number));
    expect(event?.message).toBe('m'.repeat(1999));
    expect(event?.breadcrumbs).toEqual([{ type: 'click', message: 'b'.repeat(999), timestamp: 1 }]);
    expect((event?.http as { url: string } | undefined)?.url).toBe(`https://x.example/${'u'.repeat(493)}`);
  });
});
