import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import type { IssuesDeps } from './deps.ts';
import { createIssueService } from './issue-service.ts';
import { groupRoutes } from './routes/groups.ts';
import { viewRoutes } from './routes/views.ts';

/** The issue views of front-end error monitoring (spec §4.6): issues, overview, events, retention. */
export function createIssues(ctx: AppContext, deps: IssuesDeps) {
  const issues = createIssueService(ctx, deps);
  return {
    service: issues,
    async register(app: FastifyInstance) {
      groupRoutes(app, issues);
      viewRoutes(app, issues);
    },
  };
}
