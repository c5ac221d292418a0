import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { License } from './auth/license.ts';
import type { Cache } from './cache/cache.ts';
import type { SecretBox } from './crypto/secrets.ts';
import type { Database, Db } from './db/client.ts';
import type { Egress } from './egress/client.ts';
import type { PublicLinks } from './http/public-links.ts';
import type { Jobs } from './jobs/types.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { RealtimeHub } from './realtime/hub.ts';
import type { SettingsRegistry } from './settings/registry.ts';
import type { SettingsStore } from './settings/store.ts';

/** What every module is built with. Passed in, never imported as a singleton. */
export type AppContext = {
  config: Config;
  database: Database;
  db: Db;
  cache: Cache;
  /** field encryption of stored secrets (AES-256-GCM, key ids for rotation) */
  secrets: SecretBox;
  /** the one outbound HTTP client: SSRF guard, pinned addresses, redirects re-checked, caps */
  egress: Egress;
  /** queues, retries, dead letters, cron schedules, outbox sends, system tasks (pg-boss) */
  jobs: Jobs;
  license: License;
  /** the one builder of the links the service hands out: absolute, from the public base URL */
  links: PublicLinks;
  metrics: Metrics;
  settingsRegistry: SettingsRegistry;
  settings: SettingsStore;
  realtime: RealtimeHub;
  clock: () => Date;
  log: FastifyBaseLogger;
};
