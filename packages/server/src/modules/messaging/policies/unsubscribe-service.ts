import type { SecretBox } from '../../../platform/crypto/secrets.ts';
import type { EventDef } from '../../../platform/events/types.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { readUnsubscribeToken } from '../unsubscribe/token.ts';
import type { PreferencesService } from './preferences-service.ts';

export type UnsubscribeService = ReturnType<typeof createUnsubscribeService>;

/**
 * The unsubscribe link (spec §4.4): the token names a recipient and an event; unsubscribing
 * switches that event's email off for that recipient. A token that does not read, or names an
 * event the catalog no longer has, answers null.
 */
export function createUnsubscribeService(deps: {
  secrets: SecretBox;
  catalog: Catalog;
  preferences: PreferencesService;
}) {
  const read = (token: string) => {
    const target = readUnsubscribeToken(deps.secrets, token);
    const def = target && deps.catalog.get(target.eventKey);
    return target && def ? { target, def } : null;
  };
  return {
    /** The event the link stops. */
    find: (token: string): EventDef | null => read(token)?.def ?? null,

    /** Switches the email off; null when the link is not valid or the event is mandatory. */
    async unsubscribe(token: string): Promise<EventDef | null> {
      const found = read(token);
      if (!found || found.def.mandatory) return null;
      await deps.preferences.unsubscribe(found.target, found.def.key);
      return found.def;
    },
  };
}
