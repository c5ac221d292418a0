import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { SettingsStore } from '../../../platform/settings/store.ts';
import type { Notifier } from '../../messaging/index.ts';
import { driveErrors } from '../errors.ts';
import type { DriveSettings } from '../settings.ts';
import type { SpaceRow } from './space-repository.ts';
import * as repo from './space-repository.ts';
import * as usageRepo from './usage-repository.ts';

/**
 * A space's quota and usage (spec §2.2, §8). Usage counts every stored version of every node
 * not purged: live files, the recycle bin and older versions alike. Nothing is ever deleted
 * to make room (trash and versions never expire because of quota); an upload that does not fit
 * is refused. Charges are conditional updates, so concurrent uploads cannot overrun the quota.
 */
const GB = 1024 ** 3;

export function createUsageService(deps: {
  db: Db;
  clock: () => Date;
  settings: Pick<SettingsStore, 'effective'>;
  notify: Notifier['notify'];
  /** the users to warn: the space's managers */
  managersOf: (scope: Scope, space: SpaceRow) => Promise<number[]>;
}) {
  const { db } = deps;
  const settingsOf = (tenantId: number | null) => deps.settings.effective<DriveSettings>('drive', tenantId);

  /** The quota in bytes: the space's own, else the settings default of its type; 0 = unlimited. */
  async function quotaOf(space: SpaceRow): Promise<number> {
    if (space.quotaBytes !== null) return space.quotaBytes;
    const s = await settingsOf(space.tenantId);
    const gb =
      space.type === 'personal' ? s.personalQuotaGb : space.type === 'department' ? s.departmentQuotaGb : s.teamQuotaGb;
    return gb * GB;
  }

  return {
    quotaOf,

    /** The version cap: the space's own, else the settings default. */
    async maxVersionsOf(space: SpaceRow): Promise<number> {
      return space.maxVersions ?? (await settingsOf(space.tenantId)).maxVersions;
    },

    /** Charges `bytes` within the caller's transaction or refuses with 413 drive.quota_exceeded. */
    async charge(tx: Db, space: SpaceRow, bytes: number) {
      const quota = await quotaOf(space);
      const row = await repo.chargeUsage(tx, space.id, bytes, quota);
      if (!row) throw driveErrors.quotaExceeded(quota, space.usedBytes + space.reservedBytes, bytes);
      return row;
    },

    /** Reserves `bytes` for a chunked upload (the same check as a charge). */
    async reserve(tx: Db, space: SpaceRow, bytes: number) {
      const quota = await quotaOf(space);
      const row = await repo.chargeUsage(tx, space.id, bytes, quota, { column: 'reserved' });
      if (!row) throw driveErrors.quotaExceeded(quota, space.usedBytes + space.reservedBytes, bytes);
      return row;
    },

    /** Turns a reservation into usage (complete of a chunked upload). */
    settleReservation: (tx: Db, spaceId: number, bytes: number) =>
      repo.chargeUsage(tx, spaceId, bytes, 0, { fromReservation: true }),

    release: (tx: Db, spaceId: number, bytes: number, column: 'used' | 'reserved' = 'used') =>
      repo.releaseUsage(tx, spaceId, bytes, column),

    /** Live, recycle-bin and older-version bytes apart, with the counters and the quota. */
    async breakdown(space: SpaceRow) {
      const parts = await usageRepo.usageBreakdown(db, space.id);
      const quotaBytes = await quotaOf(space);
      return { quotaBytes, usedBytes: space.usedBytes, reservedBytes: space.reservedBytes, ...parts };
    },

    /**
     * After a charge commits: warns the space's managers once when usage crosses
     * `quotaWarningPercent`, and re-arms the warning once usage falls back below it.
     */
    async checkWarning(scope: Scope, spaceId: number) {
      const space = await repo.findSpace(db, scope, spaceId);
      if (!space) return;
      const quota = await quotaOf(space);
      if (quota === 0) return;
      const percent = Math.floor(((space.usedBytes + space.reservedBytes) * 100) / quota);
      const threshold = (await settingsOf(space.tenantId)).quotaWarningPercent;
      if (percent < threshold) {
        if (space.quotaWarnedAt) await usageRepo.setWarned(db, space.id, null);
        return;
      }
      // one instance wins the flag: the warning goes out once per crossing
      if (!(await usageRepo.claimWarning(db, space.id, deps.clock()))) return;
      const recipients = await deps.managersOf(scope, space);
      if (recipients.length === 0) return;
      await deps.notify('drive.quota.warning', {
        tenantId: space.tenantId,
        recipients: recipients.map((id) => ({ type: 'user' as const, id })),
        variables: { spaceName: space.name, percent },
        link: `/drive?space=${space.id}`,
      });
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
