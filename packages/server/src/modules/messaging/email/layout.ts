import { escapeHtml } from '../../../platform/html/escape.ts';

/**
 * The HTML around a built-in notification (an event without an email template): a heading, the
 * content, a button to the deep link, and the unsubscribe footer. Inline styles and a table
 * layout, since mail clients ignore style sheets.
 */
export function notificationLayout(p: {
  title: string;
  bodyHtml: string;
  link: string | null;
  unsubscribeUrl: string | null;
}): string {
  const button = p.link
    ? `<p style="margin:24px 0 0"><a href="${escapeHtml(p.link)}" style="display:inline-block;padding:10px 20px;background:#2563eb;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:600">View details</a></p>`
    : '';
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(p.title)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7;padding:24px 0"><tr><td align="center">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;width:100%;background:#ffffff;border-radius:8px;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1f2937;font-size:15px;line-height:1.6">
<tr><td style="padding:32px">
<h1 style="margin:0 0 16px;font-size:20px;line-height:1.3">${escapeHtml(p.title)}</h1>
${p.bodyHtml}
${button}
</td></tr>
</table>
${p.unsubscribeUrl ? unsubscribeFooter(p.unsubscribeUrl) : ''}
</td></tr></table>
</body></html>`;
}

export function unsubscribeFooter(url: string): string {
  return `<p style="margin:16px 0 0;font-family:Helvetica,Arial,sans-serif;font-size:12px;color:#6b7280">You receive this email because of your notification settings. <a href="${escapeHtml(url)}" style="color:#6b7280">Unsubscribe</a></p>`;
}

/** A template's own HTML keeps its design; only the unsubscribe footer goes in (before `</body>` if it has one). */
export function withUnsubscribeFooter(html: string, url: string | null): string {
  if (!url) return html;
  const footer = unsubscribeFooter(url);
  const end = html.search(/<\/body\s*>/i);
  return end === -1 ? `${html}\n${footer}` : `${html.slice(0, end)}${footer}\n${html.slice(end)}`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/**
 * The text/plain alternative of an HTML body: block ends become line breaks, links keep their
 * URL, tags go, entities decode. Good enough for mail clients that prefer text; not a renderer.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<(head|style|script|title)[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a\s*>/gi, (_, href: string, label: string) =>
      label.replace(/<[^>]*>/g, '').trim() === href ? href : `${label} (${href})`,
    )
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|table)\s*>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ENTITIES[e] ?? '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
