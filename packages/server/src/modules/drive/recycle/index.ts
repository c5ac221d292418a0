import type { FastifyInstance } from 'fastify';
import type { DriveCore } from '../core.ts';
import { createHoldsService } from './holds-service.ts';
import { createLocksService } from './locks-service.ts';
import { createRecycleService } from './recycle-service.ts';
import { holdRoutes } from './routes/holds.ts';
import { lockRoutes } from './routes/locks.ts';
import { recycleRoutes } from './routes/recycle.ts';

/**
 * The drive's delete, recycle bin, retention, check-out locks and legal holds. `holds` is what
 * other areas use to refuse work on held nodes (`assertNotHeld`, `heldIds`).
 */
export function createRecycleArea(core: DriveCore) {
  const holds = createHoldsService(core);
  const recycle = createRecycleService(core, { holds });
  const locks = createLocksService(core);
  return {
    holds,
    recycle,
    locks,
    routes(app: FastifyInstance) {
      recycleRoutes(app, recycle);
      lockRoutes(app, locks);
      holdRoutes(app, holds);
    },
  };
}

export type RecycleArea = ReturnType<typeof createRecycleArea>;
