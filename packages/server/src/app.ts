import websocket from '@fastify/websocket';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import type { Config } from './config.ts';
import { createDriveModule, driveEvents } from './modules/drive/index.ts';
import { createFilesModule } from './modules/files/index.ts';
import { createIdentityModule, type IdentityModule, identityEvents } from './modules/identity/index.ts';
import { createMemberModule } from './modules/member/index.ts';
import {
  createMessagingModule,
  type MessagingModule,
  messagingEvents,
  type Notifier,
} from './modules/messaging/index.ts';
import { createMonitorModule, monitorEvents } from './modules/monitor/index.ts';
import {
  createOpenPlatformModule,
  type OpenPlatformModule,
  openPlatformEvents,
} from './modules/open-platform/index.ts';
import { createOpsModule, opsEvents } from './modules/ops/index.ts';
import { createPaymentModule, paymentEvents } from './modules/payment/index.ts';
import { createSchedulerModule, schedulerEvents } from './modules/scheduler/index.ts';
import { createSystemModule } from './modules/system/index.ts';
import { createTasksModule, tasksEvents } from './modules/tasks/index.ts';
import { type License, loadLicense } from './platform/auth/license.ts';
import type { Cache, CacheEvent } from './platform/cache/cache.ts';
import type { AppContext } from './platform/context.ts';
import { createSecretBox } from './platform/crypto/secrets.ts';
import type { Database } from './platform/db/client.ts';
import { createEgress } from './platform/egress/client.ts';
import type { ModuleEvents } from './platform/events/types.ts';
import { consolePages, DEFAULT_CONSOLE_DIR } from './platform/http/console.ts';
import { registerDocsRoutes, registerOpenApi } from './platform/http/openapi.ts';
import { createPublicLinks } from './platform/http/public-links.ts';
import { createHttpServer, type HttpServerOptions } from './platform/http/server.ts';
import { createJobs } from './platform/jobs/jobs.ts';
import { createMetrics, type Metrics } from './platform/metrics/metrics.ts';
import { createRealtimeHub } from './platform/realtime/hub.ts';
import { SettingsRegistry } from './platform/settings/registry.ts';
import { createSettingsStore } from './platform/settings/store.ts';
import { VERSION } from './version.ts';

export { VERSION } from './version.ts';

/**
 * Every module's events, declared once in its events.ts (docs/decisions/0008): the notification
 * catalog and the webhook registry both read this list.
 */
export const moduleEvents: readonly ModuleEvents[] = [
  opsEvents,
  identityEvents,
  schedulerEvents,
  tasksEvents,
  messagingEvents,
  paymentEvents,
  openPlatformEvents,
  monitorEvents,
  driveEvents,
];

export type AppDeps = {
  config: Config;
  database: Database;
  cache: Cache;
  license?: License;
  clock?: () => Date;
  /** Tests only: registers extra routes just before the docs routes (so they appear in the document). */
  extraRoutes?: (app: FastifyInstance) => void | Promise<void>;
  /** where log lines go; default standard output (tests read them) */
  logDestination?: DestinationStream;
  /** Tests only: events of modules that do not exist yet, declared beside the module ones. */
  extraEvents?: readonly ModuleEvents[];
  /** the built console served at / (default packages/console/dist); tests give a fixture */
  consoleDir?: string;
  /** Tests only: told of every answer the document does not declare (platform/http/server.ts). */
  onUndocumentedAnswer?: HttpServerOptions['onUndocumentedAnswer'];
};

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    identity: IdentityModule;
    messaging: MessagingModule;
    openPlatform: OpenPlatformModule;
    /** every permission code a route declares, templates expanded (`security:setting:view`) */
    permissionCodes: ReadonlySet<string>;
  }
}

/**
 * The whole service as a Fastify instance, built from its dependencies. main.ts and the tests
 * both build it here; the caller owns (and closes) the database and the cache.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database, cache } = deps;
  const events = [...moduleEvents, ...(deps.extraEvents ?? [])];
  const clock = deps.clock ?? (() => new Date());
  const logger = pino(
    { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    deps.logDestination,
  );
  const license = deps.license ?? loadLicense(config.license);
  const metrics = createMetrics({ poolStats: database.poolStats });
  const settingsRegistry = new SettingsRegistry();

  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    cache,
    secrets: createSecretBox(config.secretKeys),
    egress: createEgress({ allow: config.egressAllowHosts, onUnreached: () => metrics.dependencyFailed('egress') }),
    license,
    links: createPublicLinks(config.publicBaseUrl),
    metrics,
    jobs: createJobs({ database, config, registry: metrics.registry, log: logger }),
    settingsRegistry,
    settings: createSettingsStore({ db: database.db, registry: settingsRegistry, cache, clock }),
    realtime: createRealtimeHub({ db: database.db, cache, clock }),
    clock,
    log: logger,
  };

  // Bound late: the notification center needs identity's contacts, and identity, ops, the
  // scheduler and the task center notify (from system tasks, jobs and routes, after everything is built).
  const notify: Notifier['notify'] = (key, input) => messaging.notify(key, input);
  const platformAdmins = () => identity.platformAdmins();
  // Modules in the spec's mount order (§1): ops, identity, member, platform.
  const ops = createOpsModule(ctx, {
    dashboard: {
      identityStats: (scope, now) => identity.identityStats(scope, now),
      operationStats: (scope, now) => system.operationStats(scope, now),
      signInsByDay: (scope, from, to) => identity.signInsByDay(scope, from, to),
      operationsByDay: (scope, from, to) => system.operationsByDay(scope, from, to),
    },
    health: {
      storage: () => files.probeStorage(),
      mail: () => messaging.probeMail(),
    },
    notify,
    platformAdmins,
  });
  const identity = createIdentityModule(ctx, { notify });
  const member = createMemberModule(ctx);
  const system = createSystemModule(ctx, { tenantIdByCode: identity.tenantIdByCode });
  const scheduler = createSchedulerModule(ctx, { notify, platformAdmins });
  const files = createFilesModule(ctx);
  const tasks = createTasksModule(ctx, { files, exportOperationLogs: system.exportOperationLogs, notify });
  const drive = createDriveModule(ctx, { directory: identity, files, notify, startTask: tasks.create });
  tasks.registerKind(drive.accessLogExportKind);
  const messaging = createMessagingModule(
    ctx,
    {
      userContacts: identity.userContacts,
      memberContacts: member.contacts,
      usersByTargets: identity.usersByTargets,
      targetsOfUser: identity.targetsOfUser,
      missingTargets: identity.missingTargets,
      activeUsers: identity.activeUsers,
    },
    events,
  );
  // payment events reach open-platform webhooks in the transaction of their status move
  // and the payment webhooks view is open-platform's, limited to payment events (spec §4.5)
  const payment = createPaymentModule(ctx, {
    emitWebhookWithin: () => openPlatform.webhooks.emitWithin,
    webhookView: (prefixes) => openPlatform.webhookView(prefixes),
  });
  const openPlatform = createOpenPlatformModule(
    ctx,
    { user: identity.oauthSubject, tenantCode: identity.tenantCodeById, notifyWithin: messaging.notifyWithin },
    events,
  );
  const monitor = createMonitorModule(ctx, { userContacts: identity.userContacts, notify: messaging.notify });
  if (config.captchaEnabled !== null) settingsRegistry.setDefault('security', 'captchaEnabled', config.captchaEnabled);

  const app = createHttpServer({
    config,
    logger,
    metrics,
    license,
    cache,
    resolveAuth: identity.resolveAuth,
    resolveAppAuth: openPlatform.resolveAppAuth,
    pages: consolePages({ dir: deps.consoleDir ?? DEFAULT_CONSOLE_DIR, publicBaseUrl: config.publicBaseUrl }),
    onUndocumentedAnswer: deps.onUndocumentedAnswer,
  });
  app.decorate('ctx', ctx);
  app.decorate('identity', identity);
  app.decorate('messaging', messaging);
  app.decorate('openPlatform', openPlatform);
  const declared = new Set<string>();
  app.addHook('onRoute', (r) => {
    if (r.config?.permission) declared.add(r.config.permission);
  });
  await ctx.settings.listen();
  await registerOpenApi(app, {
    version: VERSION,
    serverUrl: config.publicBaseUrl,
    oauth: openPlatform.oauthScheme(),
  });
  await app.register(websocket);

  await ops.register(app);
  await identity.register(app);
  await member.register(app);
  await system.register(app);
  await scheduler.register(app);
  await files.register(app);
  await tasks.register(app);
  await drive.register(app);
  await messaging.register(app);
  await payment.register(app);
  await openPlatform.register(app);
  await monitor.register(app);
  ctx.realtime.register(app, identity.resolveAuth);
  await deps.extraRoutes?.(app);
  await registerDocsRoutes(app, { serverUrl: config.publicBaseUrl });

  app.decorate('permissionCodes', expandPermissionTemplates(declared, settingsRegistry));
  const unwatch = cache.watch(cacheEvents(logger, metrics));
  app.addHook('onClose', async () => unwatch());
  app.addHook('onClose', async () => ctx.realtime.closeAll());
  app.addHook('onClose', async () => ctx.jobs.stop());
  await ctx.jobs.start(); // after every module declared its queues; onReady hooks may schedule
  await app.ready();
  return app;
}

/** `{module}:setting:view` stands for one code per registered settings module. */
function expandPermissionTemplates(declared: Set<string>, registry: SettingsRegistry): ReadonlySet<string> {
  const out = new Set<string>();
  for (const code of declared) {
    if (code.includes('{module}')) for (const m of registry.all()) out.add(code.replace('{module}', m.module));
    else out.add(code);
  }
  return out;
}

/**
 * A Redis outage in the log once when it starts and once when it ends (never per request), and
 * every call it failed in the dependency failure counter (docs/decisions/0040-dependency-faults.md).
 */
function cacheEvents(log: FastifyBaseLogger, metrics: Metrics) {
  return (e: CacheEvent) => {
    if (e.type === 'failure') metrics.dependencyFailed('cache');
    else if (e.type === 'down')
      log.warn(
        { err: e.error },
        'cache: Redis does not answer. Until it is back: principals and settings are read from PostgreSQL, ' +
          'rate limits count per instance, live push reaches this instance only, captchas and share-link sessions answer 503',
      );
    else if (e.type === 'up') log.info({ downForMs: e.downForMs }, 'cache: Redis answers again');
  };
}
