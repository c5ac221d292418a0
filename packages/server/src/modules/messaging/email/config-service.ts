import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { isUniqueViolation } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { escapeHtml } from '../render.ts';
import { configRows, type EmailConfigRow, ownConfig, passwordContext } from './config-repository.ts';
import { emailErrors } from './errors.ts';
import type { EmailSender, SendResult } from './sender.ts';

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

/** The answer shape: everything but the password, and whether one is stored. */
export function toConfigDto(row: EmailConfigRow) {
  const { passwordEncrypted, tenantId: _tenant, ...rest } = row;
  return { ...rest, passwordSet: passwordEncrypted !== null };
}

/** What a send answers: the SMTP outcome and the send log it wrote. */
export const sendResultDto = (r: SendResult) =>
  r.status === 'sent'
    ? { status: r.status, error: null, messageId: r.messageId, logId: r.logId }
    : { status: r.status, error: r.error, messageId: null, logId: r.logId };

/**
 * SMTP configuration, one per scope. A tenant without one uses the platform's (`inherited`). The
 * password is encrypted with the row id as context, kept when a save omits it, and never answered.
 */
export function createEmailConfigService(ctx: AppContext, sender: EmailSender) {
  const { db, clock, secrets } = ctx;

  async function saveOnce(scope: Scope, input: EmailConfigInput) {
    return db.transaction(async (tx) => {
      const current = await ownConfig(tx, scope.tenantId);
      const username = input.username ?? '';
      if (username && input.password === undefined && !current?.passwordEncrypted) {
        throw httpErrors.invalidField('password', 'is required when a username is set');
      }
      const now = clock();
      const values = {
        host: input.host,
        port: input.port,
        secure: input.secure ?? false,
        username,
        fromAddress: input.fromAddress,
        fromName: input.fromName ?? '',
        enabled: input.enabled ?? true,
        updatedAt: now,
        // without a username there is no login, so no password to keep
        ...(username ? {} : { passwordEncrypted: null }),
      };
      const row = current
        ? await configRows.update(tx, scope, current.id, values)
        : await configRows.insert(tx, scope, { ...values, createdAt: now });
      if (!row) throw emailErrors.configNotFound();
      if (!username || input.password === undefined) return row;
      // The row id is part of the encryption context, so the password is written once the id exists.
      const passwordEncrypted = secrets.encrypt(input.password, passwordContext(row.id));
      return (await configRows.update(tx, scope, row.id, { passwordEncrypted })) ?? row;
    });
  }

  return {
    async get(scope: Scope) {
      const own = await ownConfig(db, scope.tenantId);
      const platform = own === null && scope.tenantId !== null ? await ownConfig(db, null) : null;
      return { config: own ? toConfigDto(own) : null, inherited: platform?.enabled === true };
    },

    async save(scope: Scope, input: EmailConfigInput) {
      try {
        return toConfigDto(await saveOnce(scope, input));
      } catch (err) {
        // two first saves at once: the other one created the row, so this one updates it
        if (isUniqueViolation(err)) return toConfigDto(await saveOnce(scope, input));
        throw err;
      }
    },

    /** Sends a test mail with the configuration saved at this scope (enabled or not). */
    async test(scope: Scope, to: string) {
      const config = await ownConfig(db, scope.tenantId);
      if (!config) throw emailErrors.configNotFound();
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
      return sendResultDto(result as SendResult);
    },
  };
}

export type EmailConfigService = ReturnType<typeof createEmailConfigService>;
