import type { Cache } from '../../../platform/cache/cache.ts';
import { createLocalCache, type LocalCache } from '../../../platform/cache/local-cache.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type ClientRecord, findClient } from './client-repository.ts';

/**
 * Client records for client authentication on the OAuth hot paths (client_credentials tokens,
 * introspection), in the kernel's local cache: any change to an application (settings, status,
 * secret, deletion) drops it on every instance. A cached record is never the last word: the
 * statement that does the work re-checks the application's row (see client-token-writer.ts), and
 * the other grants read it afresh (`reload`). Token checks read the application's status from the
 * database with the token.
 */
export function createClientCache(db: Db, cache: Pick<Cache, 'publish' | 'subscribe' | 'watch'>, clock: () => Date) {
  return createLocalCache<ClientRecord | null>({
    channel: 'open-platform:client-changed',
    load: (clientId) => findClient(db, clientId),
    cache,
    clock,
  });
}

export type ClientCache = LocalCache<ClientRecord | null>;
