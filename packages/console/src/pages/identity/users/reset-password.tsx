import { useMutation } from '@tanstack/react-query';
import { App, Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { ErrorMessage } from '../../../components/error-message';
import { applyFieldErrors } from '../../../components/form-errors';

/** Sets a new password for a user; the server ends every session of theirs. */
export function ResetPasswordDialog({
  user,
  onClose,
}: {
  user: { id: number; username: string };
  onClose: () => void;
}) {
  const { t } = useTranslation('identity');
  const { message } = App.useApp();
  const [form] = Form.useForm<{ password: string }>();
  const reset = useMutation({
    mutationFn: (password: string) =>
      unwrap(api.PUT('/api/users/{id}/reset-password', { params: { path: { id: user.id } }, body: { password } })),
    onSuccess: () => {
      void message.success(t('users.passwordReset'));
      onClose();
    },
    onError: (err) => applyFieldErrors(form, err),
  });
  return (
    <Modal
      open
      title={t('users.resetPasswordOf', { name: user.username })}
      okText={t('save')}
      cancelText={t('cancel')}
      confirmLoading={reset.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
    >
      <ErrorMessage error={reset.error} />
      <Form form={form} layout="vertical" onFinish={(v) => reset.mutate(v.password)} style={{ marginTop: 16 }}>
        <Form.Item
          name="password"
          label={t('users.newPassword')}
          extra={t('users.passwordEndsSessions')}
          rules={[{ required: true, message: t('required') }]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
