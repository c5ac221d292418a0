import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

/** A time in the person's time zone and language (the browser's), empty when there is none. */
export function formatTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString(document.documentElement.lang || undefined) : '';
}

export function StatusTag({ status }: { status: 'active' | 'disabled' }) {
  const { t } = useTranslation('identity');
  return <Tag color={status === 'active' ? 'green' : 'default'}>{t(`status.${status}`)}</Tag>;
}
