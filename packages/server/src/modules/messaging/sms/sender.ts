import type { AppContext } from '../../../platform/context.ts';
import { configSecret } from '../../../platform/provider-configs/index.ts';
import { renderTemplate } from '../render.ts';
import { configs, type SmsConfigRow } from './config-repository.ts';
import { logs, type SmsSendLogRow } from './log-repository.ts';
import { PROVIDERS } from './providers/index.ts';
import { SMS_SECRET } from './tables.ts';
import type { SmsTemplateRow } from './template-repository.ts';

/** One SMS to send: the sending tenant, the number, the template code and variables, and where it came from. */
export type SmsAttempt = {
  tenantId: number | null;
  phone: string;
  templateCode: string | null;
  variables: Record<string, unknown>;
  dispatchId: number | null;
  eventKey: string | null;
};

/**
 * Sends one SMS and writes its send log row (one per attempt, sent or failed). A failure is the
 * row's error, never a throw: missing configuration, undecryptable secret, refused call, or the
 * provider's own error code and text. The secret never appears in an error.
 */
export function createSmsSender(ctx: AppContext) {
  const { db, clock, secrets, egress } = ctx;
  const sealed = configSecret<SmsConfigRow, 'accessKeySecretEncrypted', 'accessKeySecretSet'>(secrets, SMS_SECRET);

  /** The configuration the template's owner sends with: the one it names, else the default. */
  async function configFor(template: SmsTemplateRow): Promise<SmsConfigRow | string> {
    if (template.configId === null) {
      return (await configs.effectiveDefault(db, template.tenantId)) ?? 'No active default SMS configuration applies';
    }
    const row = await configs.findById(db, { tenantId: template.tenantId }, template.configId);
    if (!row) return 'The SMS configuration of the template no longer exists';
    return row.status === 'active' ? row : `The SMS configuration "${row.name}" is disabled`;
  }

  async function log(
    a: SmsAttempt,
    config: SmsConfigRow | null,
    result: { providerMessageId: string | null } | { error: string },
  ): Promise<SmsSendLogRow> {
    return logs.insert(
      db,
      { tenantId: a.tenantId },
      {
        dispatchId: a.dispatchId,
        eventKey: a.eventKey,
        templateCode: a.templateCode,
        configId: config?.id ?? null,
        provider: config?.provider ?? null,
        phone: a.phone,
        status: 'error' in result ? 'failed' : 'sent',
        providerMessageId: 'error' in result ? null : result.providerMessageId,
        error: 'error' in result ? result.error.slice(0, 1000) : null,
        createdAt: clock(),
      },
    );
  }

  async function send(a: SmsAttempt, template: SmsTemplateRow): Promise<SmsSendLogRow> {
    const config = await configFor(template);
    if (typeof config === 'string') return log(a, null, { error: config });
    let secret: string | null;
    try {
      secret = sealed.open(config);
    } catch {
      secret = null;
    }
    if (secret === null) {
      return log(a, config, { error: 'The stored access key secret cannot be decrypted; save it again' });
    }
    const provider = PROVIDERS[config.provider];
    try {
      const result = await provider.send(
        egress,
        {
          endpoint: config.endpoint,
          region: config.region,
          accessKeyId: config.accessKeyId,
          accessKeySecret: secret,
          signName: config.signName,
          sdkAppId: config.sdkAppId,
        },
        {
          phone: a.phone,
          templateId: template.providerTemplateId,
          // declared names in order; a missing variable is an empty string, like everywhere else
          params: template.variables.map((name) => ({ name, value: renderTemplate(`{{${name}}}`, a.variables) })),
        },
        clock(),
      );
      return log(
        a,
        config,
        result.ok ? { providerMessageId: result.messageId } : { error: scrub(result.error, secret) },
      );
    } catch (err) {
      return log(a, config, { error: scrub((err as Error).message, secret) });
    }
  }

  return {
    send,
    /** A failure before any provider call (no template, for example), logged like any attempt. */
    fail: (a: SmsAttempt, error: string) => log(a, null, { error }),
  };
}

function scrub(text: string, secret: string): string {
  return secret ? text.split(secret).join('***') : text;
}

export type SmsSender = ReturnType<typeof createSmsSender>;
