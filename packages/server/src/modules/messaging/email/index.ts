import type { AppContext } from '../../../platform/context.ts';
import type { MessagingArea, MessagingDeps } from '../deps.ts';
import { createEmailAdapter } from './adapter.ts';
import { createEmailConfigService } from './config-service.ts';
import { createTransportCache } from './mail-transport.ts';
import { emailConfigRoutes } from './routes/email-config.ts';
import { emailSendLogRoutes } from './routes/email-send-logs.ts';
import { emailTemplateRoutes } from './routes/email-templates.ts';
import { createEmailSendLogService } from './send-log-service.ts';
import { createEmailSender, type EmailSender } from './sender.ts';
import { createEmailTemplateService } from './template-service.ts';

export type { OutgoingMail, SendResult } from './sender.ts';

export type EmailArea = MessagingArea & {
  /** sends one prepared mail with the tenant's effective configuration and logs it */
  sendMail: EmailSender['sendOne'];
  /** the health check of the platform's SMTP server */
  probe: EmailSender['probe'];
};

/** Email: SMTP config, templates, send logs, test send; the email channel adapter. */
export function createEmail(ctx: AppContext, _deps: MessagingDeps): EmailArea {
  const transports = createTransportCache();
  const sender = createEmailSender(ctx, transports);
  return {
    adapter: createEmailAdapter(ctx, sender),
    sendMail: sender.sendOne,
    probe: sender.probe,
    register(app) {
      emailConfigRoutes(app, createEmailConfigService(ctx, sender));
      emailTemplateRoutes(app, createEmailTemplateService(ctx));
      emailSendLogRoutes(app, createEmailSendLogService(ctx, sender));
      app.addHook('onClose', async () => transports.close());
    },
  };
}
