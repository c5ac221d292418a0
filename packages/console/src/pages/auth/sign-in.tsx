import { Button, Form, Input, Space, Typography, theme } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiCallError, api, unwrap } from '../../api/client';
import { type SignInInput, signIn } from '../../app/session';
import { ErrorMessage } from '../../components/error-message';

type Captcha = { captchaId: string; image: string } | null;

/**
 * Sign-in: username, password, tenant code (empty for platform administrators), and a captcha
 * when the tenant's security settings ask for one. `?next=` is where to go afterwards (a path of
 * this console only), `?tenant=` fills the tenant code (the OAuth consent page knows it).
 */
export default function SignInPage() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [form] = Form.useForm<SignInInput>();
  const [captcha, setCaptcha] = useState<Captcha>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const tenant = params.get('tenant') ?? '';
  const { token } = theme.useToken();

  const loadCaptcha = useCallback(
    async (tenantCode: string) => {
      const answer = await unwrap(
        api.GET('/api/auth/captcha', { params: { query: tenantCode ? { tenantCode } : {} } }),
      );
      setCaptcha(
        answer.enabled && answer.captchaId && answer.image
          ? { captchaId: answer.captchaId, image: answer.image }
          : null,
      );
      form.setFieldValue('captchaCode', '');
    },
    [form],
  );

  useEffect(() => {
    loadCaptcha(tenant).catch(setError);
  }, [tenant, loadCaptcha]);

  async function submit(values: SignInInput) {
    setBusy(true);
    setError(null);
    try {
      await signIn({
        username: values.username,
        password: values.password,
        ...(values.tenantCode ? { tenantCode: values.tenantCode } : {}),
        ...(captcha ? { captchaId: captcha.captchaId, captchaCode: values.captchaCode } : {}),
      });
      const next = params.get('next');
      // only a path of this console: never an address elsewhere (an open redirect)
      navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
    } catch (err) {
      setError(err);
      if (err instanceof ApiCallError) {
        for (const d of err.body.details ?? [])
          form.setFields([{ name: d.field as keyof SignInInput, errors: [d.message] }]);
      }
      await loadCaptcha(form.getFieldValue('tenantCode') ?? '').catch(() => {});
    } finally {
      setBusy(false);
    }
  }

  return (
    <main style={{ minHeight: '100vh', display: 'grid', placeItems: 'center', padding: 16 }}>
      {/* a plain panel: antd's Card brings its tabs, menus and dropdowns into the sign-in bundle */}
      <section
        style={{
          width: '100%',
          maxWidth: 400,
          padding: 24,
          background: token.colorBgContainer,
          border: `1px solid ${token.colorBorderSecondary}`,
          borderRadius: token.borderRadiusLG,
        }}
      >
        <Space direction="vertical" size="middle" style={{ width: '100%' }}>
          <Typography.Title level={1} style={{ fontSize: 24, margin: 0 }}>
            {t('title')}
          </Typography.Title>
          {params.get('ended') ? <Typography.Text type="warning">{t('signedOutElsewhere')}</Typography.Text> : null}
          <ErrorMessage error={error} />
          <Form
            form={form}
            layout="vertical"
            onFinish={submit}
            initialValues={{ tenantCode: tenant }}
            requiredMark={false}
          >
            <Form.Item name="tenantCode" label={t('tenantCode')} extra={t('tenantCodeHelp')}>
              <Input autoComplete="organization" onBlur={(e) => void loadCaptcha(e.target.value).catch(setError)} />
            </Form.Item>
            <Form.Item name="username" label={t('username')} rules={[{ required: true, message: t('required') }]}>
              <Input autoComplete="username" autoFocus />
            </Form.Item>
            <Form.Item name="password" label={t('password')} rules={[{ required: true, message: t('required') }]}>
              <Input.Password autoComplete="current-password" />
            </Form.Item>
            {captcha ? (
              <Form.Item label={t('captcha')} required>
                <Space.Compact style={{ width: '100%' }}>
                  <Form.Item name="captchaCode" noStyle rules={[{ required: true, message: t('required') }]}>
                    <Input aria-label={t('captcha')} autoComplete="off" />
                  </Form.Item>
                  <Button
                    aria-label={t('captchaRefresh')}
                    onClick={() => void loadCaptcha(form.getFieldValue('tenantCode') ?? '')}
                    style={{ padding: 0, height: 'auto' }}
                  >
                    <img src={captcha.image} alt={t('captcha')} height={30} />
                  </Button>
                </Space.Compact>
              </Form.Item>
            ) : null}
            <Button type="primary" htmlType="submit" block loading={busy}>
              {t('submit')}
            </Button>
          </Form>
        </Space>
      </section>
    </main>
  );
}
