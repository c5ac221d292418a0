import { describe, expect, it } from 'vitest';
import { canonicalTimezone, cronProblem, nextRuns, tickAt } from './cron.ts';

describe('cron expressions and time zones', () => {
  it('accepts IANA zone names in any case and answers their canonical spelling', () => {
    expect(canonicalTimezone('UTC')).toBe('UTC');
    expect(canonicalTimezone('asia/shanghai')).toBe('Asia/Shanghai');
    for (const bad of ['Mars/Olympus', '+05:00', 'UTC+8', '', '../etc']) expect(canonicalTimezone(bad)).toBeNull();
  });

  it('accepts five fields or an @-alias, and explains anything else', () => {
    expect(cronProblem('*/15 * * * *')).toBeNull();
    expect(cronProblem('0 9 * * 1-5', 'Europe/Berlin')).toBeNull();
    expect(cronProblem('@daily')).toBeNull();
    expect(cronProblem('* * * * * *')).toMatch(/5 fields/);
    expect(cronProblem('* * *')).toMatch(/5 fields/);
    expect(cronProblem('61 * * * *')).toMatch(/not a valid cron expression/);
  });

  it('lists the next fire times in the zone and finds the tick of a moment', () => {
    const from = new Date('2026-03-01T00:30:00Z');
    expect(nextRuns('0 9 * * *', 'Asia/Shanghai', from, 2).map((d) => d.toISOString())).toEqual([
      '2026-03-01T01:00:00.000Z',
      '2026-03-02T01:00:00.000Z',
    ]);
    expect(tickAt('*/15 * * * *', 'UTC', new Date('2026-03-01T10:44:59.900Z')).toISOString()).toBe(
      '2026-03-01T10:30:00.000Z',
    );
    expect(tickAt('*/15 * * * *', 'UTC', new Date('2026-03-01T10:45:00.000Z')).toISOString()).toBe(
      '2026-03-01T10:45:00.000Z',
    );
  });
});
