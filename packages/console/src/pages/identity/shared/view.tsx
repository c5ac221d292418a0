import { CheckCircleFilled, StopOutlined } from '@ant-design/icons';
import { Form, Radio, Select, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ListParams } from '../../../components/server-table';

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

/** The two states, named in the person's language. */
function useStatusOptions() {
  const { t } = useTranslation('identity');
  return [
    { value: 'active', label: t('status.active') },
    { value: 'disabled', label: t('status.disabled') },
  ];
}

/** A form's `status` field: active or disabled. */
export function StatusField({ extra }: { extra?: string }) {
  const { t } = useTranslation('identity');
  return (
    <Form.Item name="status" label={t('status.label')} extra={extra}>
      <Radio.Group options={useStatusOptions()} />
    </Form.Item>
  );
}

/** The list's status filter, kept in the URL's `status`. */
export function StatusFilter({ params }: { params: ListParams }) {
  const { t } = useTranslation('identity');
  return (
    <Select
      aria-label={t('status.label')}
      placeholder={t('status.label')}
      allowClear
      value={params.filters.status}
      onChange={(v) => params.set({ status: v })}
      options={useStatusOptions()}
      style={{ width: 140 }}
    />
  );
}

/** The `status` filter as the API takes it: only its two values, nothing otherwise. */
export const statusQuery = (status: string | undefined) =>
  status === 'active' || status === 'disabled' ? { status: status as 'active' | 'disabled' } : {};
