import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { NullableTimestamp } from '../../../platform/http/schemas.ts';
import type { StatusService } from '../status-service.ts';

/** The licence in force (docs/decisions/0003-licence.md); `features: "all"` when none is configured. */
export function licenseRoutes(app: FastifyInstance, status: StatusService) {
  route(app, {
    method: 'GET',
    url: '/api/license',
    operation: 'ops.license.get',
    auth: 'user',
    permission: 'platform:license:view',
    schema: {
      tags: ['Monitor'],
      summary: 'The licensee, licensed features and expiry',
      response: Type.Object({
        licensee: Type.String(),
        features: Type.Union([Type.Literal('all'), Type.Array(Type.String())], {
          description: '"all" when no licence is configured',
        }),
        expiresAt: NullableTimestamp,
        expired: Type.Boolean({ description: 'an expired licence turns every gated feature off' }),
      }),
    },
    handler: async () => status.license(),
  });
}
