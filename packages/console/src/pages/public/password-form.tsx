import { Button, Form, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorMessage } from '../../components/error-message';
import { openSession } from './share-api';

/** A password link: nothing about it shows until its password opens an access session. */
export function PasswordForm({ token, onOpened }: { token: string; onOpened: () => void }) {
  const { t } = useTranslation('share');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [form] = Form.useForm<{ password: string }>();

  async function submit({ password }: { password: string }) {
    setBusy(true);
    setError(null);
    try {
      await openSession(token, password);
      onOpened();
    } catch (err) {
      setError(err);
      form.setFieldValue('password', '');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div style={{ maxWidth: 420, margin: '32px auto' }}>
      <Space direction="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Title level={1} style={{ fontSize: 22, margin: 0 }}>
          {t('password.title')}
        </Typography.Title>
        <Typography.Paragraph style={{ margin: 0 }}>{t('password.intro')}</Typography.Paragraph>
        <ErrorMessage error={error} />
        <Form form={form} layout="vertical" onFinish={submit} requiredMark={false}>
          <Form.Item
            name="password"
            label={t('password.label')}
            rules={[{ required: true, message: t('password.required') }]}
          >
            <Input.Password autoComplete="off" autoFocus />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={busy}>
            {t('password.submit')}
          </Button>
        </Form>
      </Space>
    </div>
  );
}
