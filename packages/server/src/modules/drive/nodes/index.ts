import type { DriveCore } from '../core.ts';
import { createCopyService } from './copy-service.ts';
import { createMoveService } from './move-service.ts';
import { createNodesService } from './nodes-service.ts';
import type { NodeServices } from './routes.ts';
import { createNodeViewService } from './view-service.ts';

export { nodeRoutes } from './routes.ts';

/** The node tree's area: its services from the drive's core. */
export function createNodesArea(core: DriveCore): NodeServices {
  const views = createNodeViewService(core);
  return {
    nodes: createNodesService(core, views),
    moves: createMoveService(core, views),
    copies: createCopyService(core, views),
  };
}
