import type { AppContext } from '../../../platform/context.ts';
import { secretContext } from '../../../platform/crypto/secrets.ts';
import { EgressError } from '../../../platform/egress/errors.ts';
import { failureText, sendWebhook } from '../../../platform/egress/webhook.ts';
import { signingSecrets, type WebhookSecretContexts } from '../../../platform/egress/webhook-secrets.ts';
import type { Notifier } from '../../messaging/index.ts';
import type { AlertRuleRow, Hits } from './evaluate.ts';
import type { AlertChannel, AlertChannelOutcome } from './tables.ts';

/** spec §8: alert webhook calls time out after 8 seconds */
const WEBHOOK_TIMEOUT_MS = 8000;

/** Where a rule's webhook signing secrets are encrypted: bound to the row and column. */
export const secretContexts = (id: number): WebhookSecretContexts => ({
  current: secretContext('error_alert_rules', 'webhook_secret', id),
  previous: secretContext('error_alert_rules', 'webhook_previous_secret', id),
});

export type AlertNotify = Notifier['notify'];
export type ChannelOutcomes = Partial<Record<AlertChannel, AlertChannelOutcome>>;

const errorText = (err: unknown) =>
  err instanceof EgressError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);

/**
 * Sends one firing (or test) of a rule on each of its channels; a failing channel does not stop
 * the others, and each outcome is reported for the alert log. Email and in-app go through the
 * notification center (event ops.error.alert) restricted to the rule's channels; the webhook is
 * sent through the kernel's webhook path (signed with the rule's secret; loopback, private and
 * metadata addresses refused).
 */
export async function deliverAlert(
  ctx: AppContext,
  notify: AlertNotify,
  rule: AlertRuleRow,
  hits: Hits,
  key: string,
): Promise<ChannelOutcomes> {
  const out: ChannelOutcomes = {};
  const latest = hits.groups[0];
  const center = rule.channels.filter((c): c is 'email' | 'inapp' => c === 'email' || c === 'inapp');
  if (center.length) {
    try {
      const outboxId = await notify('ops.error.alert', {
        tenantId: rule.tenantId,
        recipients: rule.recipients.map((id) => ({ type: 'user' as const, id })),
        variables: {
          ruleName: rule.name,
          condition: hits.trigger === 'test' ? 'test' : rule.condition,
          count: hits.count,
          message: latest?.message ?? (hits.trigger === 'test' ? 'Test notification' : ''),
        },
        channels: { only: center },
        link: latest ? `/monitor/frontend-errors?issue=${latest.id}` : '/monitor/frontend-errors',
        idempotencyKey: key,
      });
      for (const c of center) out[c] = { status: 'queued', outboxId };
    } catch (err) {
      ctx.log.warn({ err, ruleId: rule.id }, 'error alert: notification failed');
      for (const c of center) out[c] = { status: 'failed', error: errorText(err) };
    }
  }
  if (rule.channels.includes('webhook')) {
    if (!rule.webhookUrl) out.webhook = { status: 'failed', error: 'no webhook URL' };
    else out.webhook = await callWebhook(ctx, rule, hits, key);
  }
  return out;
}

async function callWebhook(ctx: AppContext, rule: AlertRuleRow, hits: Hits, key: string): Promise<AlertChannelOutcome> {
  const { secretEncrypted, previousSecretEncrypted, previousSecretExpiresAt } = rule;
  if (!secretEncrypted) {
    return { status: 'failed', error: 'no signing secret: save the rule or rotate its webhook secret' };
  }
  const stored = { secretEncrypted, previousSecretEncrypted, previousSecretExpiresAt };
  const body = JSON.stringify({
    event: 'ops.error.alert',
    test: hits.trigger === 'test',
    rule: {
      id: rule.id,
      name: rule.name,
      condition: rule.condition,
      threshold: rule.threshold,
      windowMinutes: rule.windowMinutes,
    },
    hits,
    firedAt: ctx.clock().toISOString(),
  });
  const o = await sendWebhook(ctx, {
    url: rule.webhookUrl as string,
    secrets: () => signingSecrets(ctx.secrets, stored, secretContexts(rule.id), ctx.clock()),
    eventType: 'ops.error.alert',
    // the firing's idempotency key: one per firing or test send
    eventId: key,
    body,
    timeoutMs: WEBHOOK_TIMEOUT_MS,
  });
  return o.result === 'delivered' ? { status: 'delivered' } : { status: 'failed', error: failureText(o) ?? 'failed' };
}
