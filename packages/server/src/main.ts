import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig, ownAddress } from './config.ts';
import { seedIdentity } from './modules/identity/index.ts';
import { seedConsoleSite } from './modules/monitor/index.ts';
import { createCache } from './platform/cache/cache.ts';
import { openDatabase } from './platform/db/client.ts';
import { runMigrations } from './platform/db/migrate.ts';
import { consoleStatusLine, DEFAULT_CONSOLE_DIR } from './platform/http/console.ts';
import { logDestination } from './platform/logging/destination.ts';
import { openServiceDatabase, type ServiceDatabase } from './service-database.ts';
import { onStopRequest } from './stop-requests.ts';

/** sysexits.h: the embedded database could not be kept running (after repeated restarts) */
const EX_UNAVAILABLE = 69;

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

  const opened: { store?: ServiceDatabase; service?: Service } = {};
  let stopping = false;
  const starting = (async () => {
    opened.store = await openServiceDatabase(config, {
      log: (line) => console.log(line),
      onServerLost: (reason) => {
        // an outer process manager (systemd, a container runtime) restarts the service, or a person reads this
        console.error(`Atrium is stopping: ${reason}\nThe data is in ${config.dataDir}/pg; its log is pg/server.log.`);
        process.exit(EX_UNAVAILABLE);
      },
    });
    if (!stopping) opened.service = await start(config, opened.store);
  })();

  // Asked to stop while starting, the start is let finish first: its database must be stopped too.
  onStopRequest((reason) => {
    stopping = true;
    console.log(`Stopping (${reason}) …`);
    const force = setTimeout(() => {
      console.error('Atrium did not stop within 30 s: exiting anyway');
      process.exit(1);
    }, 30_000);
    force.unref();
    void (async () => {
      await starting.catch(() => {});
      const { service, store } = opened;
      if (service) {
        await service.app.close(); // stops accepting, finishes in-flight requests, lets active jobs finish (≤ 10 s)
        await service.cache.close();
        await service.database.close();
      }
      await store?.release();
      process.exit(0);
    })();
  });

  try {
    await starting;
  } catch (err) {
    await opened.store?.release();
    throw err;
  }
  if (opened.store && opened.service && !stopping) announce(config, opened.store, opened.service);
}

type Service = Awaited<ReturnType<typeof start>>;

/** Database → migrations → cache → app → seed → listen. */
async function start(config: Config, store: ServiceDatabase) {
  const database = await openDatabase({
    url: store.url,
    kind: store.kind,
    poolMax: config.databasePoolMax,
    server: store.server,
    onConnectionLost: (err) => console.error(`database: a connection was lost (${err.message}); it will be replaced`),
  });
  await runMigrations(database);
  const cache = createCache({ redisUrl: config.redisUrl, prefix: config.redisKeyPrefix });
  const app = await buildApp({ config, database, cache, logDestination: logDestination(config.logFormat) });
  const seed = await seedIdentity(app.ctx, app.permissionCodes);
  // the web console reports its own errors into the platform's site (docs/decisions/0037)
  await seedConsoleSite(app.ctx);
  await app.listen({ host: config.host, port: config.port });
  return { app, cache, database, seed };
}

/** What a person starting the service needs to know, and nothing more. */
function announce(config: Config, store: ServiceDatabase, { cache, seed }: Service) {
  const base = ownAddress(config.host, config.port);
  const lines = [
    `Atrium is running at ${base}/api (database: ${store.where}, cache: ${cache.kind})`,
    consoleStatusLine(DEFAULT_CONSOLE_DIR, base),
    `API reference: ${base}/api/docs`,
    `Platform administrator: ${seed.adminUsername}` +
      (seed.generatedPassword
        ? ` / ${seed.generatedPassword}  (generated now, shown once: change it)`
        : seed.created
          ? ' / SEED_ADMIN_PASSWORD'
          : ' (password set at first start)'),
    `Demo tenant "${seed.demoTenantCode}": sign in with tenantCode "${seed.demoTenantCode}" and the same username and password`,
  ];
  if (seed.seedPasswordIgnored)
    lines.push(
      `SEED_ADMIN_PASSWORD is ignored: it is only used at the first start, and "${seed.adminUsername}" exists with another password. ` +
        'To set it now (the service may keep running): SEED_ADMIN_PASSWORD=… npm run admin -- reset-password',
    );
  const { menusAdded, codesAdded } = seed.applied;
  if (!seed.created && (menusAdded || codesAdded))
    lines.push(
      `Upgrade: ${menusAdded} new menu nodes and ${codesAdded} new permission codes given to tenant administrators`,
    );
  for (const line of lines) console.log(line);
}

main().catch((err) => {
  console.error('Atrium failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
