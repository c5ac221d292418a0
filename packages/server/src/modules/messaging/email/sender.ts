import type { SendMailOptions } from 'nodemailer';
import type { AppContext } from '../../../platform/context.ts';
import { ProbeFailure, type ProbeResult } from '../../../platform/health/dependency-checks.ts';
import { configSecret } from '../../../platform/provider-configs/index.ts';
import { configs, type EmailConfigRow } from './config-repository.ts';
import { emailErrors } from './errors.ts';
import type { TransportCache } from './mail-transport.ts';
import { insertSendLogs } from './send-log-repository.ts';
import { EMAIL_SECRET } from './tables.ts';

/** A mail ready to go: rendered subject, HTML and text bodies, and what its send log records. */
export type OutgoingMail = {
  to: { name?: string; address: string };
  subject: string;
  html: string;
  text: string;
  /** RFC 8058 one-click unsubscribe URL; adds List-Unsubscribe and List-Unsubscribe-Post */
  unsubscribeUrl?: string | null;
  log: { dispatchId: number | null; eventKey: string | null; templateCode: string | null };
};

export type SendResult =
  | { status: 'sent'; messageId: string | null; logId: number | null }
  /** `retryable`: nothing was accepted and the server may well take it later (it was down, said 4xx) */
  | { status: 'failed'; error: string; retryable: boolean; logId: number | null };

const MAX_ERROR = 1000;

function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > MAX_ERROR ? `${message.slice(0, MAX_ERROR - 1)}…` : message;
}

/** Failures at connecting (before any message was handed over) and those an SMTP server reports as transient. */
const CONNECTION_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET']);

/**
 * Whether a failed send can be repeated without the mail arriving twice: the server said "try
 * later" (RFC 5321 §4.2.1: a 4yz reply is a transient failure), or the connection failed before
 * the message data was sent (nodemailer's `command` is the step that failed: `CONN` while
 * connecting and greeting). A connection lost while the data went out is not retried: the
 * server may have taken the message.
 */
export function retryableSend(err: unknown): boolean {
  const e = err as { code?: unknown; responseCode?: unknown; command?: unknown } | null;
  if (typeof e?.responseCode === 'number') return e.responseCode >= 400 && e.responseCode < 500;
  return (
    typeof e?.code === 'string' && CONNECTION_CODES.has(e.code) && (e.command === undefined || e.command === 'CONN')
  );
}

function messageOf(config: EmailConfigRow, mail: OutgoingMail): SendMailOptions {
  return {
    from: config.fromName ? { name: config.fromName, address: config.fromAddress } : config.fromAddress,
    to: mail.to.name ? { name: mail.to.name, address: mail.to.address } : mail.to.address,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    ...(mail.unsubscribeUrl
      ? {
          headers: {
            // RFC 8058: mailbox providers show an unsubscribe button that POSTs to the URL
            'List-Unsubscribe': `<${mail.unsubscribeUrl}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          },
        }
      : {}),
  };
}

/**
 * Sends prepared mails with one configuration, all in parallel (the pool bounds the connections),
 * and records every attempt in email_send_logs with one insert. One mail's failure is its result.
 */
export function createEmailSender(ctx: AppContext, transports: TransportCache) {
  const { db, secrets, log } = ctx;
  const sealed = configSecret<EmailConfigRow, 'passwordEncrypted', 'passwordSet'>(secrets, EMAIL_SECRET);

  async function sendAll(tenantId: number | null, config: EmailConfigRow, mails: OutgoingMail[]) {
    let password: string | null = null;
    let configError: string | null = null;
    try {
      password = sealed.open(config);
    } catch {
      configError = 'The stored SMTP password cannot be decrypted (was its key removed?); save it again';
    }
    const outcomes = await Promise.all(
      mails.map(async (mail): Promise<{ messageId: string | null } | { error: string; retryable: boolean }> => {
        if (configError) return { error: configError, retryable: false };
        try {
          const info = await transports.send(config, password, messageOf(config, mail));
          return { messageId: info.messageId ?? null };
        } catch (err) {
          const retryable = retryableSend(err);
          if (retryable) ctx.metrics.dependencyFailed('mail');
          return { error: errorText(err), retryable };
        }
      }),
    );
    const now = ctx.clock();
    let logIds: number[] = [];
    try {
      logIds = await insertSendLogs(
        db,
        mails.map((mail, i) => {
          const o = outcomes[i] as { messageId: string | null } | { error: string; retryable: boolean };
          return {
            tenantId,
            ...mail.log,
            configId: config.id,
            toAddress: mail.to.address,
            subject: mail.subject,
            status: 'error' in o ? ('failed' as const) : ('sent' as const),
            error: 'error' in o ? o.error : null,
            messageId: 'messageId' in o ? o.messageId : null,
            createdAt: now,
          };
        }),
      );
    } catch (err) {
      // The mails are out; failing the batch now would send them again on a retry.
      log.error({ err, tenantId, count: mails.length }, 'email send logs could not be written');
    }
    return outcomes.map((o, i): SendResult => {
      const logId = logIds[i] ?? null;
      return 'error' in o
        ? { status: 'failed', error: o.error, retryable: o.retryable, logId }
        : { status: 'sent', messageId: o.messageId, logId };
    });
  }

  return {
    sendAll,

    /** The health check of the platform's SMTP server (tenants' own are not probed). */
    async probe(): Promise<ProbeResult> {
      const config = await configs.effective(db, null).catch(() => {
        throw new ProbeFailure('smtp', 'its configuration cannot be read (database)');
      });
      if (!config) return { state: 'not_configured', kind: 'smtp' };
      if (!config.enabled) return { state: 'disabled', kind: 'smtp' };
      await transports.verify(config, sealed.open(config)).catch((err: unknown) => {
        throw new ProbeFailure('smtp', '', err);
      });
      return { kind: 'smtp' };
    },

    /**
     * Sends one prepared mail with the tenant's effective configuration (its own, else the
     * platform's); 409 `messaging.email_not_configured` when none is enabled.
     */
    async sendOne(tenantId: number | null, mail: OutgoingMail): Promise<SendResult> {
      const config = await configs.effective(db, tenantId);
      if (!config?.enabled) throw emailErrors.notConfigured();
      const [result] = await sendAll(tenantId, config, [mail]);
      return result as SendResult;
    },
  };
}

export type EmailSender = ReturnType<typeof createEmailSender>;
