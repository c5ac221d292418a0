import type { EventDef, ModuleEvents } from '../../../platform/events/types.ts';
import { unbuiltModuleEvents } from './unbuilt-modules.ts';

/** Display order of the groups: spec §6.2's table, then the drive; unknown groups follow. */
const GROUP_ORDER = [
  'wiki',
  'workflow',
  'identity',
  'ops',
  'open-platform',
  'report',
  'platform',
  'messaging',
  'drive',
];

export type Catalog = ReturnType<typeof createCatalog>;

/**
 * The notification event catalog (spec §6.2), fixed in code: the events the modules declare in
 * their events.ts (handed over by app.ts) and those of modules not built yet. Storage holds only
 * overrides and preferences.
 */
export function createCatalog(modules: readonly ModuleEvents[]) {
  const byKey = new Map<string, EventDef>();
  for (const def of [...modules, ...unbuiltModuleEvents].flatMap((m) => Object.values(m.notifications))) {
    if (byKey.has(def.key)) throw new Error(`notification event "${def.key}" is declared twice`);
    byKey.set(def.key, def);
  }
  const rank = (group: string) => {
    const i = GROUP_ORDER.indexOf(group);
    return i === -1 ? GROUP_ORDER.length : i;
  };
  const ordered = [...byKey.values()].sort((a, b) => rank(a.group) - rank(b.group));

  return {
    get: (key: string): EventDef | null => byKey.get(key) ?? null,
    all: (): EventDef[] => [...ordered],
    /**
     * The run-time half of the catalog check (the compiler does the rest): an unknown key or a
     * variable of the wrong type is a programming error, thrown at the call site.
     */
    checked(key: string, variables: Record<string, unknown>): EventDef {
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
    },
  };
}
