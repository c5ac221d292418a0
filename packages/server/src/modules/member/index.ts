import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { memberRoutes } from './routes.ts';

export { findMember, type Member, memberContacts } from './service.ts';

/** Members: customer-side identities, administered from the console. */
export function createMemberModule(ctx: AppContext) {
  return {
    async register(app: FastifyInstance) {
      memberRoutes(app, ctx);
    },
  };
}

export type MemberModule = ReturnType<typeof createMemberModule>;
