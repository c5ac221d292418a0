import { describe, expect, it } from 'vitest';
import { expiry } from '../src/pages/identity/tenants/expiry.ts';

/** How the tenants page words an expiry: passed, within a day, or whole days left. */
describe('tenant expiry', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  const at = (ms: number) => new Date(now + ms).toISOString();
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;

  it('none: never expires; at or before now: expired', () => {
    expect(expiry(null, now)).toEqual({ kind: 'never' });
    expect(expiry(at(0), now)).toEqual({ kind: 'expired' });
    expect(expiry(at(-5 * DAY), now)).toEqual({ kind: 'expired' });
  });

  it('less than a day left is "today"; then whole days, rounded down', () => {
    expect(expiry(at(HOUR), now)).toEqual({ kind: 'today' });
    expect(expiry(at(DAY + HOUR), now)).toEqual({ kind: 'soon', days: 1 });
    expect(expiry(at(10 * DAY + 23 * HOUR), now)).toEqual({ kind: 'soon', days: 10 });
  });

  it('soon up to the 30 days the server reminds at, later after', () => {
    expect(expiry(at(30 * DAY + HOUR), now)).toEqual({ kind: 'soon', days: 30 });
    expect(expiry(at(31 * DAY + HOUR), now)).toEqual({ kind: 'later', days: 31 });
  });
});
