import { Type } from 'typebox';
import type { SettingsModule } from '../../platform/settings/registry.ts';

/**
 * Runtime settings module `monitor` (spec §4.6 rule 3). Registered by the ingest area, which is
 * what reads it.
 */
export type MonitorSettings = {
  /** RE2 regular expressions; a report whose message matches one is dropped; invalid ones are skipped */
  errorIgnorePatterns: string[];
};

export const monitorSettings: SettingsModule = {
  module: 'monitor',
  title: 'Front-end error monitoring',
  fields: {
    errorIgnorePatterns: {
      schema: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 100 }),
      default: [],
      visibility: 'admin',
      description:
        'Regular expressions (RE2 syntax, matched anywhere in the message); matching reports are dropped. An invalid expression is skipped.',
    },
  },
};
