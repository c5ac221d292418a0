import { useQuery } from '@tanstack/react-query';
import { Form, Input, InputNumber } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { FormDialog } from '../../../components/form-dialog';
import { StatusField } from '../shared/view';

type Values = { code: string; name: string; sort: number; status: 'active' | 'disabled'; remark?: string };

/** The server's own rule for a position's code, checked here first so the person sees it as they type. */
const CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Create a position, or change one; a taken code comes back on its field. */
export function PositionForm({ id, onClose }: { id: number | null; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation('identity');
  const [form] = Form.useForm<Values>();
  const detail = useQuery({
    queryKey: ['identity', 'positions', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/positions/{id}', { params: { path: { id: id as number } } })),
    enabled: id !== null,
  });
  useEffect(() => {
    const p = detail.data;
    if (p) form.setFieldsValue({ code: p.code, name: p.name, sort: p.sort, status: p.status, remark: p.remark });
  }, [detail.data, form]);
  const save = async (v: Values) => {
    const body = { ...v, name: v.name.trim(), sort: v.sort ?? 0, remark: v.remark ?? '' };
    if (id === null) return unwrap(api.POST('/api/positions', { body }));
    return unwrap(api.PUT('/api/positions/{id}', { params: { path: { id } }, body }));
  };
  const required = { required: true, whitespace: true, message: t('required') };
  return (
    <FormDialog
      title={t(id === null ? 'positions.create' : 'positions.edit')}
      form={form}
      save={save}
      onSaved={() => onClose(true)}
      onCancel={() => onClose(false)}
      initialValues={{ status: 'active', sort: 0 }}
      loading={detail.isFetching}
      loadError={detail.error}
    >
      <Form.Item name="name" label={t('name')} rules={[required, { max: 64 }]}>
        <Input />
      </Form.Item>
      <Form.Item
        name="code"
        label={t('code')}
        extra={t('positions.codeHelp')}
        rules={[required, { max: 64 }, { pattern: CODE, message: t('positions.codeInvalid') }]}
      >
        <Input autoComplete="off" />
      </Form.Item>
      <StatusField />
      <Form.Item name="sort" label={t('sort')}>
        <InputNumber min={0} max={1_000_000} precision={0} />
      </Form.Item>
      <Form.Item name="remark" label={t('remark')} rules={[{ max: 500 }]}>
        <Input.TextArea rows={2} />
      </Form.Item>
    </FormDialog>
  );
}
