import type { TSchema } from 'typebox';

/**
 * Runtime settings modules (spec §2.2 "runtime settings module"): each module declares typed
 * fields with a default and a visibility; values resolve default ← platform ← tenant (tenant wins).
 */
export type Visibility = 'public' | 'authenticated' | 'admin';

export type SettingField = {
  schema: TSchema;
  default: unknown;
  visibility: Visibility;
  /** platform-only fields ignore tenant overrides and cannot be set by a tenant */
  platformOnly?: boolean;
  description: string;
};

export type SettingsModule = { module: string; title: string; fields: Record<string, SettingField> };

export class SettingsRegistry {
  readonly #modules = new Map<string, SettingsModule>();

  register(mod: SettingsModule): void {
    if (this.#modules.has(mod.module)) throw new Error(`settings module ${mod.module} registered twice`);
    this.#modules.set(mod.module, mod);
  }

  get(module: string): SettingsModule | undefined {
    return this.#modules.get(module);
  }

  all(): SettingsModule[] {
    return [...this.#modules.values()];
  }

  /** Overrides a field default at start (for example CAPTCHA_ENABLED from the environment). */
  setDefault(module: string, field: string, value: unknown): void {
    const f = this.#modules.get(module)?.fields[field];
    if (!f) throw new Error(`unknown setting ${module}.${field}`);
    f.default = value;
  }
}
