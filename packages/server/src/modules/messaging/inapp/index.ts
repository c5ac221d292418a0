import type { AppContext } from '../../../platform/context.ts';
import type { MessagingArea, MessagingDeps } from '../deps.ts';
import { createInAppAdapter } from './adapter.ts';
import { createMessageService } from './message-service.ts';
import { adminMessageRoutes } from './routes/admin-messages.ts';
import { myMessageRoutes } from './routes/my-messages.ts';
import { templateRoutes } from './routes/templates.ts';
import { createSendService } from './send-service.ts';
import { createTemplateService } from './template-service.ts';

/** In-app messages and templates (spec §2.3, §4.4): the inapp channel adapter and its routes. */
export function createInApp(ctx: AppContext, deps: MessagingDeps): MessagingArea {
  const messages = createMessageService(ctx);
  const send = createSendService(ctx, deps);
  const templates = createTemplateService(ctx);
  return {
    adapter: createInAppAdapter(ctx),
    register(app) {
      // static paths (unread-count, read-all, batch, admin, send) before the {id} ones
      adminMessageRoutes(app, messages, send);
      myMessageRoutes(app, messages);
      templateRoutes(app, templates);
    },
  };
}
