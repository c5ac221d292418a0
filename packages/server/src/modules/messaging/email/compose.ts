import { escapeHtml } from '../../../platform/html/escape.ts';
import type { PublicLinks } from '../../../platform/http/public-links.ts';
import type { Delivery } from '../channels/types.ts';
import { renderTemplate, textToHtml } from '../render.ts';
import { htmlToText, notificationLayout, withUnsubscribeFooter } from './layout.ts';
import type { OutgoingMail } from './sender.ts';

export type TemplateText = { code: string; subject: string; content: string };

/** The mailbox a delivery goes to: a user's or member's email, an external recipient's address. */
export function addressOf(delivery: Delivery): string | null {
  const { contact } = delivery;
  const address = contact.type === 'external' ? contact.address : contact.email;
  return address?.trim() || null;
}

/** The template code a delivery asks for: the dispatch's override, else the event's. */
export function templateCodeOf(delivery: Delivery): string | null {
  return delivery.channelOptions.templates?.email ?? delivery.event.templates.email ?? null;
}

/** A subject is one header line, whatever the variables held. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Renders a template's subject and HTML (variables HTML-escaped); the text part is derived from the HTML. */
export function renderEmailTemplate(
  template: Pick<TemplateText, 'subject' | 'content'>,
  variables: Record<string, unknown>,
  unsubscribeUrl: string | null,
) {
  const html = withUnsubscribeFooter(renderTemplate(template.content, variables, escapeHtml), unsubscribeUrl);
  return { subject: oneLine(renderTemplate(template.subject, variables)), html, text: htmlToText(html) };
}

/**
 * The mail of one delivery: with an email template when one applies, otherwise the event's
 * built-in title and plain-text content in the notification layout, with a button to the link.
 */
export function composeDelivery(
  delivery: Delivery,
  address: string,
  template: TemplateText | null,
  links: PublicLinks,
): OutgoingMail {
  const { event, variables, unsubscribeUrl, contact } = delivery;
  // a mail is read outside the console: its button and text carry the absolute link
  const link = links.resolve(delivery.link);
  const log = { dispatchId: delivery.dispatchId, eventKey: event.key, templateCode: template?.code ?? null };
  const to = contact.type === 'external' ? { address } : { name: contact.name, address };
  if (template) return { to, ...renderEmailTemplate(template, variables, unsubscribeUrl), unsubscribeUrl, log };

  const subject = oneLine(renderTemplate(event.title, variables));
  const content = renderTemplate(event.content, variables);
  const html = notificationLayout({ title: subject, bodyHtml: textToHtml(content), link, unsubscribeUrl });
  const text = [content, link ? `View details: ${link}` : '', unsubscribeUrl ? `Unsubscribe: ${unsubscribeUrl}` : '']
    .filter(Boolean)
    .join('\n\n');
  return { to, subject, html, text, unsubscribeUrl, log };
}
