import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * The service built in the bench process the way main.ts builds it (migrations, buildApp,
 * seedIdentity; production mode, generated secrets, memory cache) on a fresh embedded PostgreSQL
 * in a temporary DATA_DIR — durable, fsync on — listening on a free loopback port. In-process so a
 * scenario can read and seed the database directly while it measures over HTTP. Everything is
 * stopped and removed when `run` settles.
 */
export type Raw = { query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };
export type InProcess = { app: FastifyInstance; raw: Raw; base: string };

export async function withInProcessService<T>(
  opts: { prefix: string; password: string; env?: Record<string, string> },
  run: (s: InProcess) => Promise<T>,
): Promise<T> {
  const [{ buildApp }, { loadConfig }, { seedIdentity }, { createCache }, { openDatabase }, { runMigrations }] =
    await Promise.all([
      import('../packages/server/src/app.ts'),
      import('../packages/server/src/config.ts'),
      import('../packages/server/src/modules/identity/index.ts'),
      import('../packages/server/src/platform/cache/cache.ts'),
      import('../packages/server/src/platform/db/client.ts'),
      import('../packages/server/src/platform/db/migrate.ts'),
    ]);
  const { startEmbeddedPostgres } = await import('../packages/server/src/platform/db/embedded-server.ts');
  const dataDir = mkdtempSync(join(os.tmpdir(), opts.prefix));
  try {
    const config = loadConfig({
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'http://127.0.0.1',
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(48).toString('base64url'),
      SECRET_KEYS: `bench:${randomBytes(32).toString('base64')}`,
      SEED_ADMIN_PASSWORD: opts.password,
      CAPTCHA_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      ...opts.env,
    });
    const embedded = await startEmbeddedPostgres(dataDir, { log: () => {} });
    try {
      const db = await openDatabase({ url: embedded.url, kind: 'embedded', poolMax: config.databasePoolMax });
      const cache = createCache({ redisUrl: null, prefix: config.redisKeyPrefix });
      let app: FastifyInstance | null = null;
      try {
        await runMigrations(db);
        app = await buildApp({ config, database: db, cache });
        await seedIdentity(app.ctx, app.permissionCodes);
        await app.listen({ host: '127.0.0.1', port: 0 });
        const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
        return await run({ app, raw: (db.db as unknown as { $client: Raw }).$client, base });
      } finally {
        await app?.close();
        await cache.close();
        await db.close();
      }
    } finally {
      await embedded.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The q-quantile of ascending `sorted` (nearest rank). */
export const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
