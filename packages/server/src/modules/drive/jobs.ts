import { defineSystemTask } from '../../platform/jobs/define.ts';

/** What the drive's system tasks call; each run uses the application clock. */
type DriveJobDeps = {
  clock: () => Date;
  ensureActivityPartitions: (now: Date) => Promise<{ partitions: string[] }>;
  purgeExpiredRecycleBin: (now: Date) => Promise<{ purged: number; skippedHeld: number }>;
  expireUploadBindings: (now: Date) => Promise<{ released: number }>;
  remindExpiringGrants: (now: Date) => Promise<{ reminded: number }>;
  remindExpiringLinks: (now: Date) => Promise<{ reminded: number }>;
  sendLinkDigests: (now: Date) => Promise<{ period: string; creators: number; sent: number }>;
};

/** Spec §8: activities and share-link access logs are partitioned by UTC month; this month's and the next two's partitions exist ahead. */
const activityPartitions = defineSystemTask<DriveJobDeps>({
  name: 'drive.activityPartitions',
  description: 'Create the monthly partitions of drive activities and share-link access logs ahead of time',
  schedule: '7 2 * * *',
  handler: async (_params, _run, deps) => deps.ensureActivityPartitions(deps.clock()),
});

/** Spec §3.5: recycle-bin items older than recycleRetentionDays are purged; held nodes are skipped. */
const recycleRetention = defineSystemTask<DriveJobDeps>({
  name: 'drive.recycleRetention',
  description: 'Purge recycle-bin items past the retention period (recycleRetentionDays; legal holds skipped)',
  schedule: '23 3 * * *',
  handler: async (_params, _run, deps) => deps.purgeExpiredRecycleBin(deps.clock()),
});

/** Chunked uploads that were aborted or expired give their reserved quota back. */
const expireUploadBindings = defineSystemTask<DriveJobDeps>({
  name: 'drive.expireUploadBindings',
  description: 'Release the quota reserved by chunked drive uploads that expired or were abandoned',
  schedule: '41 * * * *',
  handler: async (_params, _run, deps) => deps.expireUploadBindings(deps.clock()),
});

/** Grants expiring within shareExpiryReminderHours are announced once to their users. */
const grantExpiryReminders = defineSystemTask<DriveJobDeps>({
  name: 'drive.grantExpiryReminders',
  description: 'Remind users of their temporary drive grants expiring within shareExpiryReminderHours',
  schedule: '*/15 * * * *',
  handler: async (_params, _run, deps) => deps.remindExpiringGrants(deps.clock()),
});

/** Active share links expiring within shareExpiryReminderHours are announced once to their creators. */
const linkExpiryReminders = defineSystemTask<DriveJobDeps>({
  name: 'drive.linkExpiryReminders',
  description: 'Remind creators of their share links expiring within shareExpiryReminderHours',
  schedule: '*/15 * * * *',
  handler: async (_params, _run, deps) => deps.remindExpiringLinks(deps.clock()),
});

/** Each link creator whose links were used on the previous UTC day gets one summary (drive.link.digest). */
const linkDigest = defineSystemTask<DriveJobDeps>({
  name: 'drive.linkDigest',
  description: 'Send each share-link creator one daily summary of who opened their links (the previous UTC day)',
  schedule: '13 1 * * *',
  handler: async (_params, _run, deps) => deps.sendLinkDigests(deps.clock()),
});

/** The background work of the drive (registered by index.ts). */
export const driveJobs = {
  activityPartitions,
  recycleRetention,
  expireUploadBindings,
  grantExpiryReminders,
  linkExpiryReminders,
  linkDigest,
};
