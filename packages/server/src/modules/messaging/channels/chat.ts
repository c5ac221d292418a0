import type { AppContext } from '../../../platform/context.ts';
import type { Severity } from '../../../platform/events/types.ts';
import type { MessagingSettings } from '../settings.ts';
import { deliverEach, postJson, renderedTexts } from './delivery-helpers.ts';
import type { ChannelAdapter, Delivery, DeliveryOutcome } from './types.ts';

/*
 * Card format: a Slack incoming-webhook message, `{ text, blocks }` in Block Kit
 * (https://docs.slack.dev/reference/block-kit/blocks). `text` is the fallback shown in
 * notifications; the blocks are a header (title), a section (content), a context line (severity,
 * event, recipient) and, when the notification has a link, an "Open" button. Slack answers 200
 * "ok", or 4xx naming the problem (invalid_blocks, no_service…), which becomes `HTTP <status>`.
 */

const SEVERITY: Record<Severity, string> = { normal: 'Normal', important: 'Important', critical: 'Critical' };

/** Block Kit text limits (header 150, section 3000, button URL 3000 characters). */
const LIMITS = { header: 150, section: 3000, url: 3000 };

/** mrkdwn needs only these three escaped (Slack, "Escaping text"). */
const mrkdwn = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Cuts to `max` characters with an ellipsis, never leaving half an escape behind. */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).replace(/&[a-z]*$/, '')}…`;
}

/** The card for one delivery; `mention` names the user or member when the card goes to a shared bot. */
export function chatCard(d: Delivery, link: string | null, mention: string | null) {
  const { title, content } = renderedTexts(d);
  const heading = title.trim() || d.event.displayName;
  const context = [`*${SEVERITY[d.event.severity]}*`, mrkdwn(d.event.displayName)];
  if (mention) context.push(`for *${mrkdwn(mention)}*`);
  const blocks: object[] = [{ type: 'header', text: { type: 'plain_text', text: clip(heading, LIMITS.header) } }];
  // a section's text may not be empty
  if (content.trim())
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(mrkdwn(content), LIMITS.section) } });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: context.join(' · ') }] });
  if (link && link.length <= LIMITS.url) {
    const button = { type: 'button', text: { type: 'plain_text', text: 'Open' }, url: link };
    blocks.push({
      type: 'actions',
      elements: [d.event.severity === 'critical' ? { ...button, style: 'danger' } : button],
    });
  }
  return { text: clip(mrkdwn(`${SEVERITY[d.event.severity]}: ${heading}`), LIMITS.section), blocks };
}

/**
 * Chat channel (spec §4.4 rule 6): posts a card to a bot webhook — an external recipient's own
 * address, or for users and members the tenant's `chatWebhookUrl` with the recipient named on the
 * card. One card per delivery, also when several share the bot, so each dispatch row has its outcome.
 * A tenant without a bot URL can still reach external chat recipients, so an empty URL makes its
 * users unreachable rather than the channel unavailable.
 */
export function createChatAdapter(ctx: AppContext): ChannelAdapter {
  const settingsOf = (tenantId: number | null) => ctx.settings.effective<MessagingSettings>('messaging', tenantId);

  async function deliver(batch: Delivery[]): Promise<DeliveryOutcome[]> {
    const first = batch[0];
    if (!first) return [];
    // a batch is one tenant's: its bot URL is read once
    const sharedBot = (await settingsOf(first.tenantId)).chatWebhookUrl.trim();
    return deliverEach(batch, async (d) => {
      const external = d.contact.type === 'external';
      const url = external ? d.contact.address : sharedBot;
      if (!url) return { status: 'unreachable', detail: external ? 'no chat address' : 'no chat bot URL configured' };
      const card = chatCard(d, ctx.links.resolve(d.link), external ? null : d.contact.name);
      return postJson(ctx, url, JSON.stringify(card));
    });
  }

  return {
    channel: 'chat',
    available: async (tenantId) => (await settingsOf(tenantId)).chatEnabled,
    deliver,
  };
}
