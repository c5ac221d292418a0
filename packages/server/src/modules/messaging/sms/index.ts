import type { AppContext } from '../../../platform/context.ts';
import type { MessagingArea, MessagingDeps } from '../deps.ts';
import { createSmsAdapter } from './adapter.ts';
import { createSmsConfigService } from './config-service.ts';
import { createSmsLogService } from './log-service.ts';
import { smsConfigRoutes } from './routes/configs.ts';
import { smsLogRoutes } from './routes/logs.ts';
import { smsTemplateRoutes } from './routes/templates.ts';
import { createSmsSender } from './sender.ts';
import { createSmsTemplateService } from './template-service.ts';

/** SMS: provider configs (two cloud providers), templates, send logs; the sms channel adapter. */
export function createSms(ctx: AppContext, _deps: MessagingDeps): MessagingArea {
  const sender = createSmsSender(ctx);
  const configs = createSmsConfigService(ctx);
  const templates = createSmsTemplateService(ctx);
  const logs = createSmsLogService(ctx, sender);
  return {
    adapter: createSmsAdapter(ctx, sender),
    register(app) {
      smsConfigRoutes(app, configs);
      smsTemplateRoutes(app, templates);
      smsLogRoutes(app, logs);
    },
  };
}
