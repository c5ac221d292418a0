import { describe, expect, it } from 'vitest';
import { nextDigestTime, quietWindowEnd, zonedInstant } from './zoned-time.ts';

const at = (iso: string) => new Date(iso);

describe('quiet hours in the recipient time zone', () => {
  it('a window crossing midnight holds before and after midnight and ends at the local end time', () => {
    // Asia/Shanghai is UTC+8 all year: 23:30 local = 15:30Z; 06:59 local = 22:59Z the day before
    expect(quietWindowEnd(at('2026-11-21T15:30:00Z'), 'Asia/Shanghai', '22:00', '07:00')).toEqual(
      at('2026-11-21T23:00:00Z'),
    );
    expect(quietWindowEnd(at('2026-11-21T22:59:00Z'), 'Asia/Shanghai', '22:00', '07:00')).toEqual(
      at('2026-11-21T23:00:00Z'),
    );
    expect(quietWindowEnd(at('2026-11-21T23:00:00Z'), 'Asia/Shanghai', '22:00', '07:00')).toBeNull();
    expect(quietWindowEnd(at('2026-11-21T13:59:00Z'), 'Asia/Shanghai', '22:00', '07:00')).toBeNull();
  });

  it('a same-day window is [start, end)', () => {
    expect(quietWindowEnd(at('2026-11-21T05:00:00Z'), 'Asia/Shanghai', '12:00', '14:00')).toEqual(
      at('2026-11-21T06:00:00Z'),
    );
    expect(quietWindowEnd(at('2026-11-21T06:00:00Z'), 'Asia/Shanghai', '12:00', '14:00')).toBeNull();
    expect(quietWindowEnd(at('2026-11-21T05:00:00Z'), 'Asia/Shanghai', '12:00', '12:00')).toBeNull();
  });

  it('a window spanning the spring-forward night ends at 07:00 daylight time (one hour earlier in UTC)', () => {
    // New York, 2026-03-07 23:00 EST (04:00Z on the 8th); clocks jump to EDT at 02:00 on the 8th
    expect(quietWindowEnd(at('2026-03-08T04:00:00Z'), 'America/New_York', '22:00', '07:00')).toEqual(
      at('2026-03-08T11:00:00Z'),
    );
    // the week before, the same local window ends at 12:00Z
    expect(quietWindowEnd(at('2026-03-01T04:00:00Z'), 'America/New_York', '22:00', '07:00')).toEqual(
      at('2026-03-01T12:00:00Z'),
    );
  });

  it('a window spanning the fall-back night ends at 07:00 standard time', () => {
    // Berlin, 2026-10-24 23:00 CEST (21:00Z); back to CET at 03:00 on the 25th → 07:00 CET = 06:00Z
    expect(quietWindowEnd(at('2026-10-24T21:00:00Z'), 'Europe/Berlin', '22:00', '07:00')).toEqual(
      at('2026-10-25T06:00:00Z'),
    );
  });

  it('a local time skipped by DST maps past the jump', () => {
    expect(zonedInstant({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, 'America/New_York')).toEqual(
      at('2026-03-08T07:30:00Z'),
    );
  });
});

describe('digest times', () => {
  it('daily: the next digest hour, today or tomorrow, in local time', () => {
    expect(nextDigestTime(at('2026-11-21T00:30:00Z'), 'Asia/Shanghai', 'daily', 9)).toEqual(at('2026-11-21T01:00:00Z'));
    expect(nextDigestTime(at('2026-11-21T01:00:00Z'), 'Asia/Shanghai', 'daily', 9)).toEqual(at('2026-11-22T01:00:00Z'));
    expect(nextDigestTime(at('2026-03-07T20:00:00Z'), 'America/New_York', 'daily', 9)).toEqual(
      at('2026-03-08T13:00:00Z'),
    );
  });

  it('hourly: the next full local hour, also in a zone with a half-hour offset', () => {
    expect(nextDigestTime(at('2026-11-21T10:15:00Z'), 'Asia/Shanghai', 'hourly', 9)).toEqual(
      at('2026-11-21T11:00:00Z'),
    );
    // India is UTC+5:30: 10:15Z is 15:45 local → 16:00 local = 10:30Z
    expect(nextDigestTime(at('2026-11-21T10:15:00Z'), 'Asia/Kolkata', 'hourly', 9)).toEqual(at('2026-11-21T10:30:00Z'));
  });
});
