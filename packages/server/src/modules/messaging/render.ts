import { escapeHtml } from '../../platform/html/escape.ts';

/**
 * `{{name}}` placeholders (dotted paths allowed), the one template syntax of the notification
 * center: built-in event texts, in-app, email and SMS templates. A missing variable renders as
 * an empty string; `escapeValue` is applied to every substituted value (HTML email bodies).
 */
export function renderTemplate(
  template: string,
  variables: Record<string, unknown>,
  escapeValue: (value: string) => string = (v) => v,
): string {
  return template.replace(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g, (_, path: string) => {
    let value: unknown = variables;
    for (const part of path.split('.')) {
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
    }
    return value === undefined || value === null ? '' : escapeValue(String(value));
  });
}

/** The variable names a template uses, in order of first use. */
export function templateVariables(template: string): string[] {
  const names = new Set<string>();
  for (const m of template.matchAll(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g)) names.add(m[1] as string);
  return [...names];
}

/** Plain text (built-in event content) as an HTML fragment: escaped, paragraphs and line breaks kept. */
export function textToHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replaceAll('\n', '<br>')}</p>`)
    .join('\n');
}
