import type { FastifyInstance } from 'fastify';
import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { createConfigService } from './config-service.ts';
import { createDictService } from './dict-service.ts';
import { createNoticeService } from './notice-service.ts';
import { recordOperations } from './operation-log-recorder.ts';
import { createOperationLogService, operationStats, operationsByDay } from './operation-log-service.ts';
import { dictItemRoutes } from './routes/dict-items.ts';
import { dictTypeRoutes } from './routes/dict-types.ts';
import { noticeRoutes } from './routes/notices.ts';
import { operationLogRoutes } from './routes/operation-logs.ts';
import { settingsRoutes } from './routes/settings.ts';
import { systemConfigRoutes } from './routes/system-configs.ts';
import { createSettingsService, type TenantIdByCode } from './settings-service.ts';

export type { OperationLogFilter, OperationLogRow } from './operation-log-repository.ts';
export {
  OperationLogFilter as OperationLogFilterSchema,
  OwnOperationLogFilter as OwnOperationLogFilterSchema,
} from './schemas.ts';

declare module 'fastify' {
  interface FastifyInstance {
    system: SystemModule;
  }
}

export type SystemDeps = {
  /** resolves `?tenantCode=` of the public settings (identity's) */
  tenantIdByCode: TenantIdByCode;
};

/**
 * The platform domain: dictionaries, system configs, notices with live push, the operation log
 * and the runtime settings routes.
 */
export function createSystemModule(ctx: AppContext, deps: SystemDeps) {
  const dicts = createDictService(ctx);
  const configs = createConfigService(ctx);
  const notices = createNoticeService(ctx);
  const operationLogs = createOperationLogService(ctx);
  const settings = createSettingsService(ctx, deps.tenantIdByCode);
  let recorder: ReturnType<typeof recordOperations> | null = null;

  const mod = {
    dicts,
    configs,
    notices,
    /** for the dashboard: operations recorded in the scope's tenant today (UTC) */
    operationStats: (scope: Pick<Scope, 'tenantId'>, now: Date) => operationStats(ctx.db, scope, now),
    /** for the dashboard's trend: operations per UTC day in [from, to) */
    operationsByDay: (scope: Pick<Scope, 'tenantId'>, from: Date, to: Date) => operationsByDay(ctx.db, scope, from, to),
    /** The caller's tenant's operation log with the list's filters, page by page (exports). */
    exportOperationLogs: operationLogs.export,
    /** Resolves when the operation-log writes started so far are done (tests). */
    operationLogsIdle: async () => recorder?.idle(),
    /** `app` is the root instance: the operation-log hooks then see every route. */
    async register(app: FastifyInstance) {
      app.decorate('system', mod);
      recorder = recordOperations(app, ctx);
      dictTypeRoutes(app, dicts);
      dictItemRoutes(app, dicts);
      systemConfigRoutes(app, configs);
      noticeRoutes(app, notices);
      operationLogRoutes(app, operationLogs);
      settingsRoutes(app, settings);
    },
  };
  return mod;
}

export type SystemModule = ReturnType<typeof createSystemModule>;
