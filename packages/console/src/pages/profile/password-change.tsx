import { Alert, Button, Form, Input } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiCallError, api, unwrap } from '../../api/client';
import { ErrorMessage } from '../../components/error-message';
import { fieldErrorText } from '../../components/error-text';

type Values = { oldPassword: string; newPassword: string; confirm: string };
const FIELDS = ['oldPassword', 'newPassword'] as const;

/** The server's field messages (English) in the person's language; an unknown one as the server wrote it. */
/**
 * PUT /api/auth/password. The server ends the person's other sessions and keeps this one: they stay
 * signed in here, and are told so. A refusal lands on its field, with the request id above.
 */
export function PasswordChange() {
  const { t } = useTranslation('profile');
  const [form] = Form.useForm<Values>();
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(values: Values) {
    setBusy(true);
    setError(null);
    setDone(false);
    try {
      await unwrap(
        api.PUT('/api/auth/password', {
          body: { oldPassword: values.oldPassword, newPassword: values.newPassword },
        }),
      );
      form.resetFields();
      setDone(true);
    } catch (err) {
      setError(err);
      if (err instanceof ApiCallError)
        form.setFields(
          (err.body.details ?? [])
            .filter((d) => (FIELDS as readonly string[]).includes(d.field))
            .map((d) => ({ name: d.field as (typeof FIELDS)[number], errors: [fieldErrorText(t, err, d)] })),
        );
    } finally {
      setBusy(false);
    }
  }

  return (
    <div style={{ maxWidth: 440 }}>
      {done ? (
        <Alert
          type="success"
          showIcon
          role="status"
          title={t('password.changed')}
          description={t('password.changedBody')}
          style={{ marginBottom: 16 }}
        />
      ) : null}
      <div style={{ marginBottom: error ? 16 : 0 }}>
        <ErrorMessage error={error} />
      </div>
      <Form form={form} layout="vertical" onFinish={submit} requiredMark={false}>
        <Form.Item
          name="oldPassword"
          label={t('password.old')}
          rules={[{ required: true, message: t('password.required') }]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          name="newPassword"
          label={t('password.new')}
          extra={t('password.newHelp')}
          rules={[{ required: true, message: t('password.required') }]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          name="confirm"
          label={t('password.confirm')}
          dependencies={['newPassword']}
          rules={[
            { required: true, message: t('password.required') },
            ({ getFieldValue }) => ({
              validator: (_, value) =>
                !value || value === getFieldValue('newPassword')
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('password.mismatch'))),
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={busy}>
          {t('password.submit')}
        </Button>
      </Form>
    </div>
  );
}
