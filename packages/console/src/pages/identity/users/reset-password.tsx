import { App, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { FormDialog } from '../../../components/form-dialog';

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
  return (
    <FormDialog
      title={t('users.resetPasswordOf', { name: user.username })}
      form={form}
      save={({ password }) =>
        unwrap(api.PUT('/api/users/{id}/reset-password', { params: { path: { id: user.id } }, body: { password } }))
      }
      onSaved={() => {
        void message.success(t('users.passwordReset'));
        onClose();
      }}
      onCancel={onClose}
      width={520}
    >
      <Form.Item
        name="password"
        label={t('users.newPassword')}
        extra={t('users.passwordEndsSessions')}
        rules={[{ required: true, message: t('required') }]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
    </FormDialog>
  );
}
