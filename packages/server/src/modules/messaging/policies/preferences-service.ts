import type { Db } from '../../../platform/db/client.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Channel } from '../channels/types.ts';
import { DEFAULT_SETTINGS, effectiveRules, type RecipientSettings } from '../dispatch/decide.ts';
import {
  deletePreference,
  deleteRecipientSettings,
  insertPreference,
  insertRecipientSettings,
  loadPreferences,
  loadSettings,
  settingsOf,
} from '../dispatch/rules-repository.ts';
import { isTimeZone } from '../dispatch/zoned-time.ts';
import { checkItems } from './overrides-service.ts';
import { channelViews, type ScopeOverrides, scopeOverrides } from './rules-view.ts';

/** Whose preferences: a user or member of a tenant (spec §2.3 recipient types with preferences). */
export type PreferenceOwner = { tenantId: number | null; recipientKey: string };
export type PreferenceItem = { eventKey: string; channel: Channel; enabled: boolean };
export type PreferencesService = ReturnType<typeof createPreferencesService>;

/** A recipient's own switches (events × channels) and settings (mute, quiet hours, digest). */
export function createPreferencesService(deps: { db: Db; catalog: Catalog }) {
  const { db, catalog } = deps;

  /** One switch, sparse: a switch equal to the effective default deletes the owner's row. */
  async function setPreference(tx: Db, owner: PreferenceOwner, item: PreferenceItem, overrides?: ScopeOverrides) {
    const def = catalog.get(item.eventKey);
    if (!def) return;
    const scope = overrides ?? (await scopeOverrides(tx, owner.tenantId));
    const defaultOn = effectiveRules(def, scope.get(def.key) ?? new Map()).get(item.channel)?.enabled ?? false;
    await deletePreference(tx, owner, item.eventKey, item.channel);
    if (item.enabled !== defaultOn) await insertPreference(tx, owner, item);
  }

  /** The matrix the owner sees: visible events × channels, with defaults, locks and their switches. */
  async function matrix(owner: PreferenceOwner) {
    const [overrides, prefs] = await Promise.all([
      scopeOverrides(db, owner.tenantId),
      loadPreferences(db, owner.tenantId, [owner.recipientKey]),
    ]);
    const mine = prefs.get(owner.recipientKey);
    return catalog
      .all()
      .filter((def) => !def.hidden)
      .map((def) => ({
        eventKey: def.key,
        group: def.group,
        displayName: def.displayName,
        severity: def.severity,
        mandatory: def.mandatory,
        channels: channelViews(def, overrides)
          .filter((c) => c.available)
          .map((c) => ({
            channel: c.channel,
            /** what applies when the owner has not chosen */
            default: c.enabled,
            enabled: def.mandatory ? c.enabled : (mine?.get(def.key)?.get(c.channel) ?? c.enabled),
            /** the owner cannot switch it off (mandatory event or a locked override) */
            locked: def.mandatory || c.locked,
          })),
      }));
  }

  async function settings(owner: PreferenceOwner): Promise<RecipientSettings> {
    return settingsOf(await loadSettings(db, owner.tenantId, [owner.recipientKey]), owner.recipientKey);
  }

  return {
    matrix,
    settings,

    /** Saves switches sparsely, all in one transaction; answers the matrix after the change. */
    async save(owner: PreferenceOwner, items: PreferenceItem[]) {
      checkItems(catalog, items, { hiddenAllowed: false });
      const overrides = await scopeOverrides(db, owner.tenantId);
      const details: { field: string; message: string }[] = [];
      items.forEach((item, i) => {
        const def = catalog.get(item.eventKey);
        const rule = def && effectiveRules(def, overrides.get(def.key) ?? new Map()).get(item.channel);
        if (def?.mandatory && !item.enabled)
          details.push({ field: `items.${i}.enabled`, message: 'a mandatory event cannot be switched off' });
        else if (rule?.locked && !item.enabled)
          details.push({ field: `items.${i}.enabled`, message: 'an administrator locked this channel on' });
      });
      if (details.length) throw httpErrors.validation(details);
      await db.transaction(async (tx) => {
        for (const item of items) await setPreference(tx, owner, item, overrides);
      });
      return matrix(owner);
    },

    /** Switches one event's email off for the owner (the unsubscribe link). */
    unsubscribe: (owner: PreferenceOwner, eventKey: string) =>
      db.transaction((tx) => setPreference(tx, owner, { eventKey, channel: 'email', enabled: false })),

    async saveSettings(owner: PreferenceOwner, patch: Partial<RecipientSettings>) {
      const next = { ...(await settings(owner)), ...patch };
      const details: { field: string; message: string }[] = [];
      if (!isTimeZone(next.timezone)) details.push({ field: 'timezone', message: 'not an IANA time zone' });
      if ((next.quietStart === null) !== (next.quietEnd === null))
        details.push({
          field: next.quietStart === null ? 'quietStart' : 'quietEnd',
          message: 'set both quietStart and quietEnd, or neither',
        });
      if (details.length) throw httpErrors.validation(details);
      await db.transaction(async (tx) => {
        await deleteRecipientSettings(tx, owner);
        const isDefault = (Object.keys(DEFAULT_SETTINGS) as (keyof RecipientSettings)[]).every(
          (k) => DEFAULT_SETTINGS[k] === next[k],
        );
        if (!isDefault) await insertRecipientSettings(tx, owner, next);
      });
      return next;
    },
  };
}
