import { describeThrown } from '../body';
import type { CaptureInput } from '../types';

type Report = (input: CaptureInput) => void;

/**
 * A rejection the application expects and handles through its own UI, so it is not an error:
 * a business API error (`isBusinessError === true` or `name === 'BusinessError'`) or the
 * submit-aborted marker (`'SUBMIT_ABORTED'` itself or an object whose `code` is `'SUBMIT_ABORTED'`).
 */
export function isExpectedRejection(reason: unknown): boolean {
  if (reason === 'SUBMIT_ABORTED') return true;
  if (!reason || typeof reason !== 'object') return false;
  const r = reason as { isBusinessError?: unknown; name?: unknown; code?: unknown };
  return r.isBusinessError === true || r.name === 'BusinessError' || r.code === 'SUBMIT_ABORTED';
}

/** The URL of a failed <script>, <img>, <link>, <audio>, <video>, <source>…, or undefined for a script error. */
export function resourceUrl(target: EventTarget | null): string | undefined {
  if (!target || !(target instanceof Element)) return undefined;
  const el = target as Element & { src?: unknown; href?: unknown; currentSrc?: unknown };
  for (const v of [el.currentSrc, el.src, el.href]) {
    if (typeof v === 'string' && v) return v;
  }
  return el.getAttribute('src') || el.getAttribute('href') || undefined;
}

export function instrumentErrors(report: Report): () => void {
  const onError = (event: Event) => {
    const url = resourceUrl(event.target);
    if (url !== undefined) {
      const tag = (event.target as Element).tagName.toLowerCase();
      report({
        type: 'resource_error',
        message: `Failed to load ${tag}: ${url}`,
        sourceUrl: url,
        context: { tagName: tag },
      });
      return;
    }
    if (!(event instanceof ErrorEvent)) return;
    const thrown = event.error !== undefined && event.error !== null ? describeThrown(event.error) : undefined;
    report({
      type: 'js_error',
      message: event.message || thrown?.message || 'Script error',
      stack: thrown?.stack,
      sourceUrl: event.filename || undefined,
      line: event.lineno || undefined,
      column: event.colno || undefined,
    });
  };
  const onRejection = (event: PromiseRejectionEvent) => {
    if (isExpectedRejection(event.reason)) return;
    const { message, stack } = describeThrown(event.reason);
    report({ type: 'promise_rejection', message, stack });
  };
  // Capture phase: resource load errors do not bubble to window.
  window.addEventListener('error', onError, true);
  window.addEventListener('unhandledrejection', onRejection);
  return () => {
    window.removeEventListener('error', onError, true);
    window.removeEventListener('unhandledrejection', onRejection);
  };
}
