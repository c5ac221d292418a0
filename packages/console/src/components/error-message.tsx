import { Alert } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../api/client';

/**
 * An error as a person reads it: the server's error key translated (its own message otherwise),
 * and always the request id, so support can find the log lines.
 */
export function errorText(t: TFunction, err: unknown): string {
  if (err instanceof ApiCallError) return t(`errors:${err.body.error}`, { defaultValue: err.body.message });
  return t('errors:network');
}

export function ErrorMessage({ error }: { error: unknown }) {
  const { t } = useTranslation();
  if (!error) return null;
  const id = error instanceof ApiCallError ? error.body.requestId : undefined;
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      title={errorText(t, error)}
      description={id ? t('requestId', { id }) : undefined}
    />
  );
}
