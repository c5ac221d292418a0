import type { FormInstance } from 'antd';
import { ApiCallError } from '../api/client';
import i18n from '../i18n';
import { fieldErrorText } from './error-text';

/**
 * Puts the server's field errors on their form fields (`details[].field` is a dotted path, e.g.
 * `email` or `roleIds.2`), in the person's language; answers whether any landed, so the caller can
 * still show the rest.
 */
export function applyFieldErrors(form: FormInstance, err: unknown): boolean {
  if (!(err instanceof ApiCallError) || !err.body.details?.length) return false;
  const known = new Set(form.getFieldsError().map((f) => f.name.join('.')));
  const byField = new Map<string, string[]>();
  for (const d of err.body.details) {
    // an error on an item of a list (roleIds.2) belongs to the list's field
    const name = d.field.split('.')[0] ?? d.field;
    if (!known.has(name)) continue;
    byField.set(name, [...(byField.get(name) ?? []), fieldErrorText(i18n.t, err, d)]);
  }
  form.setFields([...byField].map(([name, errors]) => ({ name, errors })));
  return byField.size > 0;
}
