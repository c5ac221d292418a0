import { useQuery } from '@tanstack/react-query';
import { Form, Input } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { FormDialog } from '../../../components/form-dialog';

type Values = { name: string; remark?: string };

/** Create a user group, or rename one; a taken name comes back on its field. */
export function GroupForm({ id, onClose }: { id: number | null; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation('identity');
  const [form] = Form.useForm<Values>();
  const detail = useQuery({
    queryKey: ['identity', 'groups', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/user-groups/{id}', { params: { path: { id: id as number } } })),
    enabled: id !== null,
  });
  useEffect(() => {
    if (detail.data) form.setFieldsValue({ name: detail.data.name, remark: detail.data.remark });
  }, [detail.data, form]);
  const save = async (v: Values) => {
    const body = { name: v.name.trim(), remark: v.remark ?? '' };
    if (id === null) return unwrap(api.POST('/api/user-groups', { body }));
    return unwrap(api.PUT('/api/user-groups/{id}', { params: { path: { id } }, body }));
  };
  return (
    <FormDialog
      title={t(id === null ? 'groups.create' : 'groups.edit')}
      form={form}
      save={save}
      onSaved={() => onClose(true)}
      onCancel={() => onClose(false)}
      loading={detail.isFetching}
      loadError={detail.error}
      width={520}
    >
      <Form.Item
        name="name"
        label={t('name')}
        rules={[{ required: true, whitespace: true, message: t('required') }, { max: 64 }]}
      >
        <Input />
      </Form.Item>
      <Form.Item name="remark" label={t('remark')} rules={[{ max: 500 }]}>
        <Input.TextArea rows={3} />
      </Form.Item>
    </FormDialog>
  );
}
