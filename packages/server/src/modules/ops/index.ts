import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { healthRoutes } from './health.ts';

/** Operations: health, metrics, server monitor, dashboard. */
export function createOpsModule(ctx: AppContext) {
  return {
    async register(app: FastifyInstance) {
      healthRoutes(app, ctx);
    },
  };
}
