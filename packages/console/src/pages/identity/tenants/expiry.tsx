import { ClockCircleOutlined, ExclamationCircleFilled } from '@ant-design/icons';
import { Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

const DAY_MS = 86_400_000;
/** The server reminds a tenant's administrators 30 days before expiry: from then on it is "soon". */
const SOON_DAYS = 30;

export type Expiry =
  | { kind: 'never' }
  | { kind: 'expired' }
  | { kind: 'today' }
  | { kind: 'soon' | 'later'; days: number };

/** Where an expiry stands at `now`: whole days left, rounded down (a tenant expiring tonight has 0). */
export function expiry(iso: string | null, now = Date.now()): Expiry {
  if (!iso) return { kind: 'never' };
  const left = new Date(iso).getTime() - now;
  if (left <= 0) return { kind: 'expired' };
  const days = Math.floor(left / DAY_MS);
  if (days === 0) return { kind: 'today' };
  return { kind: days <= SOON_DAYS ? 'soon' : 'later', days };
}

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
