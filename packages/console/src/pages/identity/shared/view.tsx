import { CheckCircleFilled, StopOutlined } from '@ant-design/icons';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

/** A time in the person's time zone and language (the browser's), empty when there is none. */
export function formatTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString(document.documentElement.lang || undefined) : '';
}

export function StatusTag({ status }: { status: 'active' | 'disabled' }) {
  const { t } = useTranslation('identity');
  // a neutral tag with a coloured icon: antd's coloured tags miss the 4.5:1 text contrast (axe)
  return (
    <Tag
      icon={
        status === 'active' ? (
          <CheckCircleFilled aria-hidden style={{ color: '#389e0d' }} />
        ) : (
          <StopOutlined aria-hidden />
        )
      }
    >
      {t(`status.${status}`)}
    </Tag>
  );
}
