import type { Cache } from './cache.ts';

export type LocalCacheOptions<V> = {
  /** pub/sub channel of the invalidations; one per cache (`<module>:<what>-changed`) */
  channel: string;
  /** reads the value afresh (a miss, an expired entry, `reload`) */
  load: (key: string) => Promise<V>;
  cache: Pick<Cache, 'publish' | 'subscribe' | 'watch'>;
  clock: () => Date;
  /** a bound on staleness should an invalidation message be lost (Redis reconnecting); default 30 s */
  ttlMs?: number;
  /** keys anyone can send (public keys, client ids) are cached too, misses included: the map stays bounded */
  maxEntries?: number;
};

export type LocalCache<V> = {
  /** subscribes to other instances' changes (and forgets everything after a Redis outage); call once while the module registers */
  listen(): Promise<void>;
  get(key: string): Promise<V>;
  /** the value as the source has it now, kept for later `get`s */
  reload(key: string): Promise<V>;
  /** after the change committed: dropped here at once, on other instances through pub/sub */
  changed(key: string): Promise<void>;
};

/**
 * The one read-through cache for hot reads of rarely changed rows (settings, OAuth clients,
 * reporting sites, alert rules): each instance keeps values in memory, and a change drops the key
 * here at once and, through cache pub/sub (Redis when several instances run), everywhere else
 * within milliseconds. A load in flight across a change does not store what it read. Changes
 * published while Redis was down never arrive: when it is back, every entry is dropped.
 */
export function createLocalCache<V>(opts: LocalCacheOptions<V>): LocalCache<V> {
  const ttlMs = opts.ttlMs ?? 30_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const entries = new Map<string, { value: V; at: number }>();
  let generation = 0;
  const drop = (key: string) => {
    generation++;
    entries.delete(key);
  };
  const read = async (key: string) => {
    const at = opts.clock().getTime();
    const started = generation;
    const value = await opts.load(key);
    if (generation === started) {
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, { value, at });
    }
    return value;
  };
  return {
    async listen() {
      opts.cache.watch((e) => {
        if (e.type !== 'resync') return;
        generation++;
        entries.clear();
      });
      await opts.cache.subscribe(opts.channel, drop);
    },
    async get(key) {
      const hit = entries.get(key);
      if (hit && opts.clock().getTime() - hit.at < ttlMs) return hit.value;
      return read(key);
    },
    reload: read,
    async changed(key) {
      drop(key);
      await opts.cache.publish(opts.channel, key);
    },
  };
}
