import { Type } from 'typebox';
import type { SettingsModule } from '../../platform/settings/registry.ts';

/** Server monitor thresholds, percent; 0 = off (the default: what is normal depends on the machine). */
export type OpsSettings = { cpuAlertPercent: number; memoryAlertPercent: number; diskAlertPercent: number };

const threshold = (what: string) => ({
  schema: Type.Number({ minimum: 0, maximum: 100 }),
  default: 0,
  visibility: 'admin' as const,
  platformOnly: true,
  description: `${what} usage (percent) at or above which the server monitor alerts the platform administrators (ops.monitor.alert); 0 = off`,
});

/** Runtime settings module `ops`: the server monitor's alert thresholds (platform values only). */
export const opsSettings: SettingsModule = {
  module: 'ops',
  title: 'Server monitor',
  fields: {
    cpuAlertPercent: threshold('CPU'),
    memoryAlertPercent: threshold('Memory'),
    diskAlertPercent: threshold('Disk (DATA_DIR)'),
  },
};
