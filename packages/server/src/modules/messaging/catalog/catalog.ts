import { CATALOG } from './events.ts';
import type { EventDef, VariablesOf } from './types.ts';

export type EventKey = keyof typeof CATALOG;
/** The variables notify() must pass for an event: checked by the compiler. */
export type EventVariables<K extends EventKey> = VariablesOf<(typeof CATALOG)[K]['variables']>;

const byKey: ReadonlyMap<string, EventDef> = new Map(Object.values(CATALOG).map((e) => [e.key, e]));

export function eventDef(key: string): EventDef | null {
  return byKey.get(key) ?? null;
}

export function allEvents(): EventDef[] {
  return [...byKey.values()];
}

/**
 * The run-time half of the catalog check (the compiler does the rest): an unknown key or a
 * variable of the wrong type is a programming error, thrown at the call site.
 */
export function checkedEvent(key: string, variables: Record<string, unknown>): EventDef {
  const def = byKey.get(key);
  if (!def) throw new Error(`notification: unknown event key "${key}"`);
  for (const [name, declared] of Object.entries(def.variables)) {
    const value = variables[name];
    const optional = declared.endsWith('?');
    if (value === undefined || value === null) {
      if (optional) continue;
      throw new Error(`notification ${key}: variable "${name}" is required`);
    }
    const type = declared.replace('?', '');
    if (typeof value !== type) throw new Error(`notification ${key}: variable "${name}" must be a ${type}`);
  }
  for (const name of Object.keys(variables)) {
    if (!(name in def.variables)) throw new Error(`notification ${key}: variable "${name}" is not declared`);
  }
  return def;
}
