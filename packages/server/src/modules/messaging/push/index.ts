import type { AppContext } from '../../../platform/context.ts';
import type { MessagingArea, MessagingDeps } from '../deps.ts';
import { createPushAdapter } from './adapter.ts';
import { createPushConfigService } from './config-service.ts';
import { createPushDeviceService } from './device-service.ts';
import { createPushLogService } from './log-service.ts';
import { pushAdminRoutes } from './routes/config.ts';
import { pushDeviceRoutes } from './routes/devices.ts';

/** Push: device binding, the aggregation push provider, push send logs; the push channel adapter. */
export function createPush(ctx: AppContext, _deps: MessagingDeps): MessagingArea {
  const config = createPushConfigService(ctx);
  const devices = createPushDeviceService(ctx);
  const logs = createPushLogService(ctx.db);
  return {
    adapter: createPushAdapter(ctx, config),
    register(app) {
      pushDeviceRoutes(app, devices);
      pushAdminRoutes(app, config, logs);
    },
  };
}
