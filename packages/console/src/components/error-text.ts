import type { TFunction } from 'i18next';
import { ApiCallError, type ApiError } from '../api/client';

/**
 * An error as a person reads it: the server's error key translated (its own message otherwise);
 * with the request id, so support can find the log lines.
 */
export function errorText(t: TFunction, err: unknown): string {
  if (err instanceof ApiCallError) return t(`errors:${err.body.error}`, { defaultValue: err.body.message });
  return t('errors:network');
}

export const requestIdOf = (err: unknown): string | undefined =>
  err instanceof ApiCallError ? err.body.requestId : undefined;

/**
 * The error in one line, for a toast: translated, and with the request id when the server answered
 * (a toast has no second line, and support needs the id to find the log lines).
 */
export function errorLine(t: TFunction, err: unknown): string {
  const text = errorText(t, err);
  const id = requestIdOf(err);
  return id ? t('common:errorWithRequestId', { text, id }) : text;
}

/**
 * A refused field in the person's language: the rule it broke (a schema keyword or a service's
 * rule, with its bound), else the error's own key when it is about this field (a taken name), else
 * the server's English words.
 */
export function fieldErrorText(t: TFunction, err: ApiCallError, d: NonNullable<ApiError['details']>[number]): string {
  if (d.rule && t(`errors:field.${d.rule}`, { defaultValue: '' }))
    return t(`errors:field.${d.rule}`, { limit: d.limit });
  if (err.body.error !== 'request.validation_failed') return t(`errors:${err.body.error}`, { defaultValue: d.message });
  return d.message;
}
