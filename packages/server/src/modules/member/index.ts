import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { memberRoutes } from './routes.ts';
import { createMemberService } from './service.ts';

export type { Member } from './service.ts';

/**
 * Members: customer-side identities, administered from the console. The worked example of
 * docs/architecture.md: index.ts wires (service from the context, routes from the service) and
 * is the module's only public face.
 */
export function createMemberModule(ctx: AppContext) {
  const members = createMemberService({ db: ctx.db, clock: ctx.clock });
  return {
    /** for the notification center: contact details of a tenant's members */
    contacts: (tenantId: number | null, ids: number[]) => members.contacts({ tenantId }, ids),
    async register(app: FastifyInstance) {
      memberRoutes(app, members);
    },
  };
}

export type MemberModule = ReturnType<typeof createMemberModule>;
