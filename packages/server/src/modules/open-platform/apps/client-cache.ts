import type { Cache } from '../../../platform/cache/cache.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type ClientRecord, findClient } from './clients.ts';

const CHANNEL = 'open-platform:client-changed';
/** a bound on staleness should an invalidation message be lost (Redis reconnecting) */
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * Client records for client authentication, the OAuth hot path (every token, revocation and
 * introspection request). Each instance keeps them in memory; any change to an application
 * (settings, status, secret, deletion) drops it here at once and, through cache pub/sub (Redis
 * with several instances), on every other instance within milliseconds. Token checks do not use
 * this: they read the application's status from the database with the token.
 */
export function createClientCache(db: Db, cache: Pick<Cache, 'publish' | 'subscribe'>, clock: () => Date) {
  const entries = new Map<string, { record: ClientRecord | null; at: number }>();
  const drop = (clientId: string) => entries.delete(clientId);

  return {
    /** subscribes to other instances' changes; call once at module registration */
    listen: () => cache.subscribe(CHANNEL, drop),

    async get(clientId: string): Promise<ClientRecord | null> {
      const now = clock().getTime();
      const hit = entries.get(clientId);
      if (hit && now - hit.at < TTL_MS) return hit.record;
      const record = await findClient(db, clientId);
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      entries.set(clientId, { record, at: now });
      return record;
    },

    /** after the change committed: here at once, elsewhere through pub/sub */
    async changed(clientId: string): Promise<void> {
      drop(clientId);
      await cache.publish(CHANNEL, clientId);
    },
  };
}

export type ClientCache = ReturnType<typeof createClientCache>;
