import { RE2JS } from 're2js';
import type { SettingsStore } from '../../../platform/settings/store.ts';
import type { MonitorSettings } from '../settings.ts';

/**
 * errorIgnorePatterns (spec §4.6 rule 3), evaluated with RE2 semantics (re2js): matching takes
 * time linear in the message, so neither a hostile pattern like `(a+)+$` nor a hostile message
 * can stall the server the way a backtracking engine would. An expression RE2 cannot compile
 * (syntax error, or a backreference or lookaround, which RE2 refuses) is skipped.
 */
const TTL_MS = 10_000;

export type IgnoreMatcher = { ignores(tenantId: number | null, message: string): Promise<boolean> };

export function compilePatterns(sources: string[]): RE2JS[] {
  const out: RE2JS[] = [];
  for (const source of sources) {
    try {
      out.push(RE2JS.compile(source));
    } catch {
      // invalid: skipped (rule 3); the settings page shows the value as saved
    }
  }
  return out;
}

/** Compiled patterns per tenant, kept for a few seconds: a report must not cost a compile per pattern. */
export function createIgnoreMatcher(settings: SettingsStore, clock: () => Date): IgnoreMatcher {
  const cache = new Map<string, { until: number; patterns: RE2JS[] }>();
  async function patternsOf(tenantId: number | null): Promise<RE2JS[]> {
    const key = String(tenantId);
    const now = clock().getTime();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.patterns;
    const values = await settings.effective<MonitorSettings>('monitor', tenantId);
    const patterns = compilePatterns(values.errorIgnorePatterns);
    cache.set(key, { until: now + TTL_MS, patterns });
    return patterns;
  }
  return {
    async ignores(tenantId, message) {
      const patterns = await patternsOf(tenantId);
      return patterns.some((p) => p.test(message));
    },
  };
}
