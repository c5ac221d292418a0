import type { DocumentedAnswers } from './route.ts';

/**
 * What is wrong with an answer a route gave, measured against its document (route.ts
 * `answers`), or null when the document declares it: the status, and the body's media type
 * among those declared for it (`*` ranges match; a status declared without a body has none).
 * Tests pass `onUndocumentedAnswer` to see every answer the suite provokes checked.
 */
export function undocumentedAnswer(answers: DocumentedAnswers, status: number, contentType: unknown): string | null {
  const declared = answers[status];
  if (!declared) return `status ${status} is not in the document`;
  const type = typeof contentType === 'string' ? contentType.split(';')[0]?.trim().toLowerCase() : undefined;
  if (!type) return null;
  if (declared.length === 0) return `status ${status} is documented without a body, but answered ${type}`;
  const matches = (range: string) =>
    range === type || range === '*/*' || (range.endsWith('/*') && type.startsWith(range.slice(0, -1)));
  return declared.some(matches) ? null : `status ${status} answered ${type}, documented as ${declared.join(', ')}`;
}
