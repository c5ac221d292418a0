import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig, ownAddress } from './config.ts';
import { seedIdentity } from './modules/identity/index.ts';
import { createCache } from './platform/cache/cache.ts';
import { openDatabase } from './platform/db/client.ts';
import { lockDataDir } from './platform/db/data-dir-lock.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './platform/db/embedded-server.ts';
import { runMigrations } from './platform/db/migrate.ts';

/** Process entry: config → database → migrations → app → listen; clean shutdown on signals. */
async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }

  // Without DATABASE_URL the service runs its own PostgreSQL under DATA_DIR (one service per DATA_DIR).
  const lock = config.databaseUrl ? null : lockDataDir(config.dataDir);
  let embedded: EmbeddedPostgres | null = null;
  const releaseStore = async () => {
    await embedded?.stop();
    lock?.release();
  };
  let started: Awaited<ReturnType<typeof start>>;
  try {
    if (lock) embedded = await startEmbeddedPostgres(config.dataDir, { log: (line) => console.log(line) });
    started = await start(config, embedded?.url ?? (config.databaseUrl as string));
  } catch (err) {
    await releaseStore();
    throw err;
  }
  const { app, cache, database, seed } = started;

  const base = ownAddress(config.host, config.port);
  const lines = [
    `Atrium is running at ${base}/api (database: ${embedded ? `embedded PostgreSQL in ${config.dataDir}/pg` : 'DATABASE_URL'}, cache: ${cache.kind})`,
    `API reference: ${base}/api/docs`,
    `Platform administrator: ${seed.adminUsername}` +
      (seed.generatedPassword
        ? ` / ${seed.generatedPassword}  (generated now, shown once: change it)`
        : seed.created
          ? ' / SEED_ADMIN_PASSWORD'
          : ' (password set at first start)'),
    `Demo tenant "${seed.demoTenantCode}": sign in with tenantCode "${seed.demoTenantCode}" and the same username and password`,
  ];
  const { menusAdded, codesAdded } = seed.applied;
  if (!seed.created && (menusAdded || codesAdded))
    lines.push(
      `Upgrade: ${menusAdded} new menu nodes and ${codesAdded} new permission codes given to tenant administrators`,
    );
  for (const line of lines) console.log(line);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app.close(); // stops accepting, finishes in-flight requests, closes sockets, lets active jobs finish (≤ 10 s)
    await cache.close();
    await database.close();
    await releaseStore();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** Database → migrations → cache → app → seed → listen. */
async function start(config: Config, databaseUrl: string) {
  const database = await openDatabase({
    url: databaseUrl,
    kind: config.databaseUrl ? 'external' : 'embedded',
    poolMax: config.databasePoolMax,
    onIdleError: (err) => console.error(`database: idle connection lost (${err.message}); it will be replaced`),
  });
  await runMigrations(database);
  const cache = createCache({ redisUrl: config.redisUrl, prefix: config.redisKeyPrefix });
  const app = await buildApp({ config, database, cache });
  const seed = await seedIdentity(app.ctx, app.permissionCodes);
  await app.listen({ host: config.host, port: config.port });
  return { app, cache, database, seed };
}

main().catch((err) => {
  console.error('Atrium failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
