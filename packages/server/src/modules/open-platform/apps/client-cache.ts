import type { Cache } from '../../../platform/cache/cache.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type ClientRecord, findClient } from './clients.ts';

const CHANNEL = 'open-platform:client-changed';
/** a bound on staleness should an invalidation message be lost (Redis reconnecting) */
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * Client records for client authentication on the OAuth hot paths (client_credentials tokens,
 * introspection). Each instance keeps them in memory; any change to an application (settings,
 * status, secret, deletion) drops it here at once and, through cache pub/sub (Redis with several
 * instances), on every other instance within milliseconds. A cached record is never the last word:
 * the statement that does the work re-checks the application's row (see client-token-writer.ts),
 * and the other grants read it afresh (`reload`). Token checks read the application's status from
 * the database with the token.
 */
export function createClientCache(db: Db, cache: Pick<Cache, 'publish' | 'subscribe'>, clock: () => Date) {
  const entries = new Map<string, { record: ClientRecord | null; at: number }>();
  const drop = (clientId: string) => entries.delete(clientId);
  const read = async (clientId: string) => {
    const at = clock().getTime();
    const record = await findClient(db, clientId);
    entries.delete(clientId);
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
    entries.set(clientId, { record, at });
    return record;
  };

  return {
    /** subscribes to other instances' changes; call once at module registration */
    listen: () => cache.subscribe(CHANNEL, drop),

    async get(clientId: string): Promise<ClientRecord | null> {
      const hit = entries.get(clientId);
      if (hit && clock().getTime() - hit.at < TTL_MS) return hit.record;
      return read(clientId);
    },

    /**
     * The record as the database has it now (kept for later `get`s): for client authentication
     * whose work does not re-check the application in its own statement.
     */
    reload: (clientId: string) => read(clientId),

    /** after the change committed: here at once, elsewhere through pub/sub */
    async changed(clientId: string): Promise<void> {
      drop(clientId);
      await cache.publish(CHANNEL, clientId);
    },
  };
}

export type ClientCache = ReturnType<typeof createClientCache>;
