import type { DriveCore } from '../core.ts';
import { createCopyService, createSubtreeCopier, type SubtreeCopier } from './copy-service.ts';
import { createMoveService } from './move-service.ts';
import { createNodesService } from './nodes-service.ts';
import type { NodeServices } from './routes.ts';
import { createNodeViewService } from './view-service.ts';

export { nodeRoutes } from './routes.ts';

/** The node tree's area: its services from the drive's core. */
export function createNodesArea(core: DriveCore): NodeServices & { copySubtree: SubtreeCopier } {
  const views = createNodeViewService(core);
  // shared with a share link's save to my drive
  const copySubtree = createSubtreeCopier(core);
  return {
    nodes: createNodesService(core, views),
    moves: createMoveService(core, views),
    copies: createCopyService(core, views, copySubtree),
    copySubtree,
  };
}
