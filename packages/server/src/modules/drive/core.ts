import type { Cache } from '../../platform/cache/cache.ts';
import type { Db } from '../../platform/db/client.ts';
import type { SettingsStore } from '../../platform/settings/store.ts';
import type { FilesModule } from '../files/index.ts';
import type { Notifier } from '../messaging/index.ts';
import type { AccessService } from './access/access-service.ts';
import type { DriveDirectory } from './access/types.ts';
import type { ActivityLog } from './activities/activity-service.ts';
import type { BehaviorAlerts } from './audit/behavior-alerts.ts';
import type { UsageService } from './spaces/usage-service.ts';
import type { VersionStore } from './versions/version-store.ts';

/**
 * What every area of the drive (spaces, nodes, uploads, recycle bin, permissions) is built
 * from: the kernel parts it uses, identity's and the files module's faces, and the drive's own
 * shared services (the role gate, the activity log, usage, the version store). index.ts builds it.
 */
export type DriveCore = {
  db: Db;
  clock: () => Date;
  /** the shared cache (share-link sessions and password attempts hold across instances) */
  cache: Cache;
  settings: Pick<SettingsStore, 'effective'>;
  files: FilesModule;
  directory: DriveDirectory;
  notify: Notifier['notify'];
  access: AccessService;
  activities: ActivityLog;
  usage: UsageService;
  versions: VersionStore;
  /** abnormal-behaviour counters (downloads, wrong share passwords) */
  alerts: BehaviorAlerts;
};
