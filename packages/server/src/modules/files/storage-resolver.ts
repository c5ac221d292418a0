import type { LookupFunction } from 'node:net';
import { join } from 'node:path';
import type { AppContext } from '../../platform/context.ts';
import { ProbeFailure, type ProbeResult } from '../../platform/health/dependency-checks.ts';
import { configSecret, listedConfigRepository } from '../../platform/provider-configs/index.ts';
import { createLocalProvider } from '../../platform/storage/local.ts';
import type { StorageProvider } from '../../platform/storage/provider.ts';
import { createS3Provider } from '../../platform/storage/s3.ts';
import { configById, type StorageConfigRow } from './storage/configs-repository.ts';
import { endpointRefusal, guardedLookup, StorageEgressRefused } from './storage/egress-lookup.ts';
import { type S3StorageSettings, STORAGE_SECRET, storageConfigs } from './storage/tables.ts';

/**
 * Which provider holds an object. A managed file records the storage configuration its bytes
 * went to (`configId`; null = the built-in local disk under DATA_DIR/files) and reads them back
 * through `byConfigId`. New objects go to the tenant's default configuration, else the
 * platform's default, else the local disk.
 *
 * Providers are cached per configuration id and version (`updated_at`), so an edited
 * configuration is picked up by every instance on its next use; `invalidate` drops one at once.
 */
export type StorageResolver = {
  forNewObject(tenantId: number | null): Promise<{ configId: number | null; provider: StorageProvider }>;
  byConfigId(configId: number | null): Promise<StorageProvider>;
  /** the built-in local disk provider (DATA_DIR/files) */
  readonly local: StorageProvider;
  invalidate(configId: number): void;
  /** builds an uncached provider from a configuration row (connectivity test) */
  build(row: StorageConfigRow, opts?: { probe?: boolean }): StorageProvider;
  /**
   * The health check of the platform's default storage (tenants' own are not probed): one HEAD
   * of an absent key, one attempt. Throws when it does not answer.
   */
  probe(): Promise<ProbeResult>;
  close(): void;
};

export class StorageConfigMissing extends Error {
  constructor(id: number) {
    super(`storage configuration ${id} does not exist`);
  }
}

type Entry = { version: number; provider: StorageProvider };

export function createStorageResolver(
  ctx: Pick<AppContext, 'db' | 'config' | 'secrets' | 'metrics'>,
  opts: { localRoot?: string } = {},
): StorageResolver {
  const local = createLocalProvider(opts.localRoot ?? join(ctx.config.dataDir, 'files'));
  const cache = new Map<number, Entry>();
  const probes = new Map<number, Entry>();
  const configs = listedConfigRepository(storageConfigs);
  const secret = configSecret<StorageConfigRow, 'secretEncrypted', 'hasSecret'>(ctx.secrets, STORAGE_SECRET);

  const build = (row: StorageConfigRow, o: { probe?: boolean } = {}): StorageProvider => {
    // A local configuration's directory derives from its id only, so no two configurations
    // (of any tenants) can share one and collect each other's objects.
    if (row.kind === 'local') return createLocalProvider(join(ctx.config.dataDir, 'storage', `config-${row.id}`));
    const s = row.settings as S3StorageSettings;
    // A tenant's endpoint is user input: its connections follow the egress rules. The
    // platform's (the operator's, often a MinIO on the private network) are trusted.
    let lookup: LookupFunction | undefined;
    if (row.tenantId !== null) {
      const allow = ctx.config.egressAllowHosts;
      const endpoint = s.endpoint || `https://s3.${s.region}.amazonaws.com`;
      const refusal = endpointRefusal(endpoint, allow);
      if (refusal) throw new StorageEgressRefused(refusal);
      const url = new URL(endpoint);
      lookup = guardedLookup(allow, Number(url.port || (url.protocol === 'https:' ? 443 : 80)));
    }
    return createS3Provider({
      lookup,
      endpoint: s.endpoint || undefined,
      region: s.region,
      bucket: s.bucket,
      accessKeyId: s.accessKeyId,
      secretAccessKey: secret.open(row) ?? '',
      forcePathStyle: s.forcePathStyle,
      prefix: s.prefix,
      onUnavailable: () => ctx.metrics.dependencyFailed('storage'),
      ...(o.probe ? { maxAttempts: 1, connectTimeoutMs: 5_000 } : {}),
    });
  };

  const cached = (row: StorageConfigRow, entries = cache, o: { probe?: boolean } = {}): StorageProvider => {
    const version = row.updatedAt.getTime();
    const hit = entries.get(row.id);
    if (hit && hit.version === version) return hit.provider;
    // The replaced provider is dropped, not closed: downloads in flight may still be using it.
    const provider = build(row, o);
    entries.set(row.id, { version, provider });
    return provider;
  };

  return {
    local,
    build,

    async forNewObject(tenantId) {
      // the tenant's own active default, else the platform's
      const row = await configs.effectiveDefault(ctx.db, tenantId);
      return row ? { configId: row.id, provider: cached(row) } : { configId: null, provider: local };
    },

    async byConfigId(configId) {
      if (configId === null) return local;
      const row = await configById(ctx.db, configId);
      if (!row) throw new StorageConfigMissing(configId);
      return cached(row);
    },

    invalidate(configId) {
      cache.delete(configId);
    },

    async probe() {
      const row = await configs.effectiveDefault(ctx.db, null).catch(() => {
        throw new ProbeFailure('unknown', 'its configuration cannot be read (database)');
      });
      const provider = row ? cached(row, probes, { probe: true }) : local;
      await provider.head('atrium-health/probe').catch((err: unknown) => {
        throw new ProbeFailure(provider.kind, '', err);
      });
      return { kind: provider.kind };
    },

    close() {
      for (const e of [...cache.values(), ...probes.values()]) closeProvider(e.provider);
      cache.clear();
      probes.clear();
    },
  };
}

function closeProvider(p: StorageProvider): void {
  (p as { close?: () => void }).close?.();
}
