import { RE2JS } from 're2js';
import type { SettingsStore } from '../../../platform/settings/store.ts';
import type { MonitorSettings } from '../settings.ts';

/**
 * errorIgnorePatterns (spec §4.6 rule 3), evaluated with RE2 semantics (re2js): matching takes
 * time linear in the message, so neither a hostile pattern like `(a+)+$` nor a hostile message
 * can stall the server the way a backtracking engine would. An expression RE2 cannot compile
 * (syntax error, or a backreference or lookaround, which RE2 refuses) is skipped.
 */
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

/**
 * Compiled once per saved value: the settings store keeps each scope's values in its cache (the
 * same array until the setting changes), so a report costs no compile and no settings query.
 */
export function createIgnoreMatcher(settings: SettingsStore): IgnoreMatcher {
  const compiled = new WeakMap<string[], RE2JS[]>();
  async function patternsOf(tenantId: number | null): Promise<RE2JS[]> {
    const sources = (await settings.effective<MonitorSettings>('monitor', tenantId)).errorIgnorePatterns;
    let patterns = compiled.get(sources);
    if (!patterns) {
      patterns = compilePatterns(sources);
      compiled.set(sources, patterns);
    }
    return patterns;
  }
  return {
    async ignores(tenantId, message) {
      const patterns = await patternsOf(tenantId);
      return patterns.some((p) => p.test(message));
    },
  };
}
