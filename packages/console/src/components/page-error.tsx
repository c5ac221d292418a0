import { Alert, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import type { FallbackProps } from './error-boundary';

/**
 * The error boundary's fallback inside antd pages: the shell and its menu stay usable around it.
 * An Alert like ErrorMessage's (already in the shell's chunk: antd's Result would add 13 KB to
 * the first screen for a page nobody should see).
 */
export function PageErrorFallback({ reference, retry }: FallbackProps) {
  const { t } = useTranslation();
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      title={<h1 style={{ fontSize: 18, margin: 0 }}>{t('pageError.title')}</h1>}
      description={
        <>
          <p style={{ margin: 0 }}>{t('pageError.body')}</p>
          {reference ? <p style={{ margin: 0 }}>{t(`pageError.${reference.kind}`, { id: reference.id })}</p> : null}
        </>
      }
      action={
        <Button type="primary" onClick={retry}>
          {t('retry')}
        </Button>
      }
    />
  );
}
