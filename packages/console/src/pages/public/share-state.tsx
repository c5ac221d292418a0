import { Result, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../../api/client';
import { ErrorMessage } from '../../components/error-message';

/** The server's refusals of a link (decision 0017's resolver), as states a visitor reads. */
const STATES: Record<string, { key: string; status: '404' | '403' | 'warning' | 'info' }> = {
  'drive.share_not_found': { key: 'notFound', status: '404' },
  'drive.share_revoked': { key: 'revoked', status: 'warning' },
  'drive.share_expired': { key: 'expired', status: 'info' },
  'drive.share_exhausted': { key: 'exhausted', status: 'info' },
  'drive.collect_limit_reached': { key: 'exhausted', status: 'info' },
  'drive.share_disabled': { key: 'disabled', status: '403' },
  'drive.share_ip_denied': { key: 'ipDenied', status: '403' },
};

export const isLinkState = (err: unknown) => err instanceof ApiCallError && err.body.error in STATES;

export function ShareState({ error }: { error: unknown }) {
  const { t } = useTranslation('share');
  const state = error instanceof ApiCallError ? STATES[error.body.error] : undefined;
  if (!state)
    return (
      <Result
        status="error"
        title={<h1 style={{ fontSize: 24, margin: 0 }}>{t('state.other.title')}</h1>}
        extra={<ErrorMessage error={error} />}
      />
    );
  const requestId = (error as ApiCallError).body.requestId;
  return (
    <Result
      status={state.status}
      title={<h1 style={{ fontSize: 24, margin: 0 }}>{t(`state.${state.key}.title`)}</h1>}
      subTitle={t(`state.${state.key}.body`)}
      extra={
        requestId ? (
          <Typography.Text type="secondary">{t('common:requestId', { id: requestId })}</Typography.Text>
        ) : null
      }
    />
  );
}
