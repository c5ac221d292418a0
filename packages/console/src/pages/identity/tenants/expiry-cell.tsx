import { ClockCircleOutlined, ExclamationCircleFilled } from '@ant-design/icons';
import { Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { expiry } from './expiry';

/**
 * A tenant's expiry: its date, and in words whether it has passed or how many days are left,
 * with a coloured icon when it needs attention (neutral tags: coloured ones fail contrast).
 */
export function ExpiryCell({ expiresAt }: { expiresAt: string | null }) {
  const { t } = useTranslation('identity');
  const state = expiry(expiresAt);
  if (state.kind === 'never') return <Typography.Text type="secondary">{t('tenants.neverExpires')}</Typography.Text>;
  const when = new Date(expiresAt as string);
  const lang = document.documentElement.lang || undefined;
  const text =
    state.kind === 'expired'
      ? t('tenants.expired')
      : state.kind === 'today'
        ? t('tenants.expiresToday')
        : t('tenants.expiresIn', { count: state.days });
  const icon =
    state.kind === 'expired' ? (
      <ExclamationCircleFilled aria-hidden style={{ color: '#cf1322' }} />
    ) : state.kind === 'later' ? (
      <ClockCircleOutlined aria-hidden />
    ) : (
      <ClockCircleOutlined aria-hidden style={{ color: '#d46b08' }} />
    );
  return (
    <Space size={4} wrap>
      <time dateTime={when.toISOString()} title={when.toLocaleString(lang)}>
        {when.toLocaleDateString(lang)}
      </time>
      <Tag icon={icon}>{text}</Tag>
    </Space>
  );
}
