import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import { errorText, requestIdOf } from './error-text';

export { errorText } from './error-text';

/** An error in an antd page: translated, with the request id. */
export function ErrorMessage({ error }: { error: unknown }) {
  const { t } = useTranslation();
  if (!error) return null;
  const id = requestIdOf(error);
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
