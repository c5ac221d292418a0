import { Type } from 'typebox';
import type { SettingsModule } from '../../platform/settings/registry.ts';

/** Runtime settings module `drive` (spec §2.2): tenant overrides of platform values, alert thresholds platform-only. */
export type DriveSettings = {
  personalQuotaGb: number;
  departmentQuotaGb: number;
  teamQuotaGb: number;
  departmentSpaceAutoCreate: boolean;
  recycleRetentionDays: number;
  maxVersions: number;
  quotaWarningPercent: number;
  externalShareEnabled: boolean;
  externalShareMaxDays: number;
  externalShareRequirePassword: boolean;
  collectMaxFileSizeMb: number;
  shareExpiryReminderHours: number;
  previewWatermarkEnabled: boolean;
  blockedExtensions: string[];
  thumbnailEnabled: boolean;
  textIndexEnabled: boolean;
  alertWindowMinutes: number;
  alertBulkDownloadCount: number;
  alertShareFailureCount: number;
};

const gb = (description: string, dflt: number) => ({
  schema: Type.Integer({ minimum: 0, maximum: 1024 * 1024 }),
  default: dflt,
  visibility: 'admin' as const,
  description,
});
const count = (description: string, max: number, platformOnly = false) => ({
  schema: Type.Integer({ minimum: 0, maximum: max }),
  default: 0,
  visibility: 'admin' as const,
  description,
  ...(platformOnly ? { platformOnly } : {}),
});
const flag = (description: string, dflt: boolean, visibility: 'admin' | 'authenticated' = 'admin') => ({
  schema: Type.Boolean(),
  default: dflt,
  visibility,
  description,
});

/** Links expire within this many days unless a tenant changes it: so expiresAt is required by default. */
export const EXTERNAL_SHARE_MAX_DAYS_DEFAULT = 30;

/** An extension, with or without its leading dot: `exe`, `.exe`, `tar.gz`. */
export const EXTENSION = '^\\.?[A-Za-z0-9][A-Za-z0-9_+-]{0,15}(\\.[A-Za-z0-9][A-Za-z0-9_+-]{0,15})?$';

export const driveSettings: SettingsModule = {
  module: 'drive',
  title: 'Enterprise drive',
  fields: {
    personalQuotaGb: gb('Default quota of a personal space in GB; 0 = unlimited', 10),
    departmentQuotaGb: gb('Default quota of a department space in GB; 0 = unlimited', 100),
    teamQuotaGb: gb('Default quota of a team space in GB; 0 = unlimited', 50),
    departmentSpaceAutoCreate: flag("Create a user's department space on first access", false),
    recycleRetentionDays: { ...count('Days the recycle bin keeps deleted items; 0 = forever', 3650), default: 30 },
    maxVersions: {
      schema: Type.Integer({ minimum: 1, maximum: 1000 }),
      default: 50,
      visibility: 'admin',
      description: 'Versions kept per file unless the space sets its own cap; pinned versions are never removed',
    },
    quotaWarningPercent: {
      schema: Type.Integer({ minimum: 1, maximum: 100 }),
      default: 90,
      visibility: 'admin',
      description: 'Space managers are warned once each time usage crosses this percentage of the quota',
    },
    externalShareEnabled: flag('Share links to people outside the company are allowed', true),
    externalShareMaxDays: {
      ...count('Longest validity of a share link in days; above 0 every link needs expiresAt; 0 = no maximum', 3650),
      default: EXTERNAL_SHARE_MAX_DAYS_DEFAULT,
    },
    externalShareRequirePassword: flag('Every share link must have a password', false),
    collectMaxFileSizeMb: { ...count('Largest file a collection link accepts, in MB', 1024 * 1024), default: 100 },
    shareExpiryReminderHours: {
      ...count('Hours before a share link or temporary grant expires to remind its owner; 0 = off', 24 * 30),
      default: 24,
    },
    previewWatermarkEnabled: flag('Watermark in-app previews with the viewer identity', false, 'authenticated'),
    blockedExtensions: {
      schema: Type.Array(Type.String({ pattern: EXTENSION }), { maxItems: 200 }),
      default: ['exe', 'dll', 'bat', 'cmd', 'com', 'scr', 'msi', 'ps1', 'vbs', 'js', 'jar', 'sh'],
      visibility: 'admin',
      description: 'Extensions drive uploads refuse; case-insensitive, a leading dot allowed',
    },
    thumbnailEnabled: flag('Generate thumbnails of images and documents', true),
    textIndexEnabled: flag('Index the body text of documents for search', true),
    alertWindowMinutes: count('Abnormal-behaviour window in minutes; 0 = off', 10080, true),
    alertBulkDownloadCount: count(
      'Downloads by one user within the window that raise an alert; 0 = off',
      1_000_000,
      true,
    ),
    alertShareFailureCount: count(
      'Failed share-link accesses (wrong password) within the window that raise an alert; 0 = off',
      1_000_000,
      true,
    ),
  },
};
