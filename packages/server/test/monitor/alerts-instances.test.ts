import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant } from '../helpers/fixtures.ts';
import { createRule, logsOf, ruleRow, runEvaluate, seedEvents } from './alerts-helpers.ts';

/**
 * Two instances on one PostgreSQL database evaluate the same rules at the same moment: the
 * debounce's conditional update lets exactly one of them fire each rule (spec §4.6 rule 6).
 */
describe('alert debounce across instances', () => {
  let a: TestApp;
  let b: TestApp;
  const now = new Date('2026-11-21T06:00:00.000Z');
  beforeAll(async () => {
    a = await createTestApp({ clock: () => new Date(now) });
    b = await createTestApp({ clock: () => new Date(now), store: a.store });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('fires each rule exactly once when both instances evaluate at once', async () => {
    const x = await createTenant(a);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await createRule(a, x.adminToken, {
        name: `rule ${i}`,
        enabled: true,
        condition: 'threshold',
        threshold: 2,
        windowMinutes: 15,
        channels: ['inapp'],
        recipients: [x.adminUserId],
      });
      ids.push(r.id);
    }
    await seedEvents(a, x.tenantId, new Date(now.getTime() - 60_000), 3);

    const results = await Promise.all([runEvaluate(a), runEvaluate(b), runEvaluate(a), runEvaluate(b)]);
    expect(results.reduce((n, r) => n + r.fired, 0)).toBe(5);
    for (const id of ids) {
      expect(await logsOf(a, id)).toHaveLength(1);
      expect((await ruleRow(a, id)).lastTriggeredAt?.toISOString()).toBe(now.toISOString());
    }
  });
});
