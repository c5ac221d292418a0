import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { ScopeRegistry } from '../scopes.ts';
import { createAppsService } from './apps-service.ts';
import { createClientCache } from './client-cache.ts';
import { appRoutes } from './routes.ts';

export type AppsDeps = {
  scopes: ScopeRegistry;
  /** removes everything hanging off an application, inside the deleting transaction */
  onDelete: (tx: Db, appId: number) => Promise<void>;
};

/** Admin management of applications (OAuth clients): registration, settings, status, secrets. */
export function createApps(ctx: AppContext, deps: AppsDeps) {
  const clients = createClientCache(ctx.db, ctx.cache, ctx.clock);
  const service = createAppsService({ ...deps, db: ctx.db, clock: ctx.clock, clients });
  return {
    service,
    clients,
    async register(app: FastifyInstance) {
      await clients.listen();
      appRoutes(app, service);
    },
  };
}
