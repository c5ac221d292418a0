/**
 * Wall-clock arithmetic in an IANA time zone with Intl only (no Temporal on Node 24): quiet
 * hours and digest times are local times, so the UTC instant of "07:00 in New York" moves with DST.
 */
type Local = { year: number; month: number; day: number; hour: number; minute: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

export function localTime(at: Date, timeZone: string): Local & { second: number } {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(at)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(at: Date, timeZone: string): number {
  const l = localTime(at, timeZone);
  return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second) - (at.getTime() - at.getMilliseconds());
}

/**
 * The instant a local wall-clock time happens. A time skipped by a DST jump (02:30 on a spring-
 * forward night) maps to the same distance after the jump, as most calendars do.
 */
export function zonedInstant(local: Local, timeZone: string): Date {
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  const first = wall - offsetAt(new Date(wall), timeZone);
  const second = wall - offsetAt(new Date(first), timeZone);
  const matches = (t: number) => {
    const l = localTime(new Date(t), timeZone);
    return l.hour === local.hour && l.minute === local.minute;
  };
  // a repeated time (fall back) is its first occurrence; a skipped one lands after the jump
  const found = [first, second].filter(matches);
  return new Date(found.length ? Math.min(...found) : Math.max(first, second));
}

/** `local` moved by whole days (calendar arithmetic, no zone involved). */
function addDays(local: Local, days: number): Local {
  const d = new Date(Date.UTC(local.year, local.month - 1, local.day + days));
  return { ...local, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * When the quiet window [start, end) that contains `now` ends, or null when `now` is outside it.
 * A window with start > end crosses midnight (22:00–07:00); start = end is no window.
 */
export function quietWindowEnd(now: Date, timeZone: string, start: string, end: string): Date | null {
  const s = minutesOf(start);
  const e = minutesOf(end);
  if (s === e) return null;
  const here = localTime(now, timeZone);
  const cur = here.hour * 60 + here.minute;
  const inside = s < e ? cur >= s && cur < e : cur >= s || cur < e;
  if (!inside) return null;
  const endDay = s > e && cur >= s ? addDays(here, 1) : here;
  return zonedInstant({ ...endDay, hour: Math.floor(e / 60), minute: e % 60 }, timeZone);
}

/** The next digest time strictly after `now`: the next local full hour, or the next `hour`:00 local. */
export function nextDigestTime(now: Date, timeZone: string, mode: 'hourly' | 'daily', hour: number): Date {
  const here = localTime(now, timeZone);
  if (mode === 'hourly') {
    // local full hours, so zones with :30 offsets get their digest at :00 local time too
    return new Date(zonedInstant({ ...here, minute: 0 }, timeZone).getTime() + 3_600_000);
  }
  let candidate = zonedInstant({ ...here, hour, minute: 0 }, timeZone);
  if (candidate.getTime() <= now.getTime())
    candidate = zonedInstant({ ...addDays(here, 1), hour, minute: 0 }, timeZone);
  return candidate;
}
