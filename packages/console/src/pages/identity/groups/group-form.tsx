import { useMutation, useQuery } from '@tanstack/react-query';
import { Form, Input, Modal, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { ErrorMessage } from '../../../components/error-message';
import { applyFieldErrors } from '../../../components/form-errors';

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
  const save = useMutation({
    mutationFn: async (v: Values) => {
      const body = { name: v.name.trim(), remark: v.remark ?? '' };
      if (id === null) return unwrap(api.POST('/api/user-groups', { body }));
      return unwrap(api.PUT('/api/user-groups/{id}', { params: { path: { id } }, body }));
    },
    onSuccess: () => onClose(true),
    onError: (err) => applyFieldErrors(form, err),
  });
  return (
    <Modal
      open
      title={t(id === null ? 'groups.create' : 'groups.edit')}
      okText={t('save')}
      cancelText={t('cancel')}
      confirmLoading={save.isPending}
      onOk={() => form.submit()}
      onCancel={() => onClose(false)}
      destroyOnHidden
      width={520}
    >
      {detail.isFetching ? <Spin /> : null}
      <ErrorMessage error={detail.error ?? save.error} />
      <Form<Values> form={form} layout="vertical" onFinish={(v) => save.mutate(v)} style={{ marginTop: 16 }}>
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
      </Form>
    </Modal>
  );
}
