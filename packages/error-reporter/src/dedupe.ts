import { DEDUPE_WINDOW_MS } from './limits';

export interface Deduper {
  /** True when the report should go out; records it so repeats within the window are dropped. */
  accept(type: string, message: string): boolean;
}

export function createDeduper(windowMs = DEDUPE_WINDOW_MS, now: () => number = Date.now): Deduper {
  const seen = new Map<string, number>();
  return {
    accept(type, message) {
      const t = now();
      const key = `${type}\u0000${message}`;
      const last = seen.get(key);
      if (last !== undefined && t - last < windowMs) return false;
      seen.set(key, t);
      // Keep the map from growing forever on a page that throws many distinct messages.
      if (seen.size > 100) {
        for (const [k, at] of seen) if (t - at >= windowMs) seen.delete(k);
      }
      return true;
    },
  };
}
