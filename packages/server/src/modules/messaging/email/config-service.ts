import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { rowOrThrow } from '../../../platform/db/sql.ts';
import { escapeHtml } from '../../../platform/html/escape.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { createSingleConfigs } from '../../../platform/provider-configs/index.ts';
import { emailErrors } from './errors.ts';
import type { EmailSender, SendResult } from './sender.ts';
import { EMAIL_SECRET, emailConfigs } from './tables.ts';

export type EmailConfigInput = {
  host: string;
  port: number;
  secure?: boolean;
  username?: string;
  password?: string;
  fromAddress: string;
  fromName?: string;
  enabled?: boolean;
};

/** What a send answers: the SMTP outcome and the send log it wrote. */
export const toSendResultView = (r: SendResult) =>
  r.status === 'sent'
    ? { status: r.status, error: null, messageId: r.messageId, logId: r.logId }
    : { status: r.status, error: r.error, messageId: null, logId: r.logId };

/**
 * SMTP configuration through the provider-configuration kit, one per scope. A tenant without one
 * uses the platform's (`inherited`). The password is kept when a save omits it, never answered.
 */
export function createEmailConfigService(ctx: AppContext, sender: EmailSender) {
  const configs = createSingleConfigs(ctx, {
    table: emailConfigs,
    secret: EMAIL_SECRET,
  });

  return {
    async get(scope: Scope) {
      const own = await configs.own(scope.tenantId);
      const platform = own === null && scope.tenantId !== null ? await configs.own(null) : null;
      return { config: own ? configs.mask(own) : null, inherited: platform?.enabled === true };
    },

    async save(scope: Scope, input: EmailConfigInput) {
      const row = await configs.save(scope, (current) => {
        const username = input.username ?? '';
        if (username && input.password === undefined && !current?.passwordEncrypted) {
          throw httpErrors.invalidField('password', 'is required when a username is set');
        }
        return {
          values: {
            host: input.host,
            port: input.port,
            secure: input.secure ?? false,
            username,
            fromAddress: input.fromAddress,
            fromName: input.fromName ?? '',
            enabled: input.enabled ?? true,
          },
          // without a username there is no login, so no password to keep
          secret: username ? input.password : null,
        };
      });
      return configs.mask(row);
    },

    /** Sends a test mail with the configuration saved at this scope (enabled or not). */
    async test(scope: Scope, to: string) {
      const config = await rowOrThrow(configs.own(scope.tenantId), emailErrors.configNotFound);
      const subject = 'Atrium SMTP test';
      const text = `This test message was sent through ${config.host}:${config.port}. Your email settings work.`;
      const [result] = await sender.sendAll(scope.tenantId, config, [
        {
          to: { address: to },
          subject,
          html: `<p>${escapeHtml(text)}</p>`,
          text,
          log: { dispatchId: null, eventKey: null, templateCode: null },
        },
      ]);
      return toSendResultView(result as SendResult);
    },
  };
}

export type EmailConfigService = ReturnType<typeof createEmailConfigService>;
