import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiCallError, api, unwrap } from '../../api/client';
import { type SignInInput, signIn } from '../../app/session';
import { errorText, fieldErrorText, requestIdOf } from '../../components/error-text';
import { LANGUAGES, type Language, setLanguage } from '../../i18n';
import './sign-in.css';

type Captcha = { captchaId: string; image: string } | null;
type Field = 'tenantCode' | 'username' | 'password' | 'captchaCode';

/**
 * Sign-in: username, password, tenant code (empty for platform administrators), and a captcha
 * when the tenant's security settings ask for one. `?next=` is where to go afterwards (a path of
 * this console only), `?tenant=` fills the tenant code (the OAuth consent page knows it).
 * Plain elements and a stylesheet of its own, no antd: it is the first page a person loads.
 */
export default function SignInPage() {
  const { t, i18n } = useTranslation('auth');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [values, setValues] = useState<Record<Field, string>>({
    tenantCode: params.get('tenant') ?? '',
    username: '',
    password: '',
    captchaCode: '',
  });
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const [captcha, setCaptcha] = useState<Captcha>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const loadCaptcha = useCallback(async (tenantCode: string) => {
    const answer = await unwrap(api.GET('/api/auth/captcha', { params: { query: tenantCode ? { tenantCode } : {} } }));
    setCaptcha(
      answer.enabled && answer.captchaId && answer.image ? { captchaId: answer.captchaId, image: answer.image } : null,
    );
    setValues((v) => ({ ...v, captchaCode: '' }));
  }, []);

  const tenantFromLink = params.get('tenant') ?? '';
  useEffect(() => {
    loadCaptcha(tenantFromLink).catch(setError);
  }, [tenantFromLink, loadCaptcha]);

  const set = (field: Field) => (e: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [field]: e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const missing: Partial<Record<Field, string>> = {};
    for (const f of ['username', 'password', ...(captcha ? ['captchaCode'] : [])] as Field[])
      if (!values[f].trim()) missing[f] = t('required');
    setFieldErrors(missing);
    if (Object.keys(missing).length) return;
    setBusy(true);
    setError(null);
    try {
      const input: SignInInput = { username: values.username, password: values.password };
      if (values.tenantCode) input.tenantCode = values.tenantCode;
      if (captcha) Object.assign(input, { captchaId: captcha.captchaId, captchaCode: values.captchaCode });
      await signIn(input);
      const next = params.get('next');
      // only a path of this console: never an address elsewhere (an open redirect)
      navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
    } catch (err) {
      setError(err);
      if (err instanceof ApiCallError)
        setFieldErrors(Object.fromEntries((err.body.details ?? []).map((d) => [d.field, fieldErrorText(t, err, d)])));
      await loadCaptcha(values.tenantCode).catch(() => {});
    } finally {
      setBusy(false);
    }
  }

  const field = (name: Field, label: string, input: { type?: string; autoComplete: string }, help?: string) => (
    <div className="signin-field">
      <label htmlFor={name}>{label}</label>
      <input
        id={name}
        name={name}
        type={input.type ?? 'text'}
        autoComplete={input.autoComplete}
        value={values[name]}
        onChange={set(name)}
        onBlur={name === 'tenantCode' ? () => void loadCaptcha(values.tenantCode).catch(setError) : undefined}
        aria-invalid={fieldErrors[name] ? true : undefined}
        aria-describedby={fieldErrors[name] ? `${name}-error` : help ? `${name}-help` : undefined}
      />
      {fieldErrors[name] ? (
        <p id={`${name}-error`} className="signin-field-error">
          {fieldErrors[name]}
        </p>
      ) : help ? (
        <p id={`${name}-help`} className="signin-help">
          {help}
        </p>
      ) : null}
    </div>
  );

  const requestId = requestIdOf(error);
  return (
    <main className="signin">
      <form className="signin-panel" onSubmit={submit} noValidate>
        <div className="signin-head">
          <h1>{t('title')}</h1>
          <select
            aria-label={t('common:language')}
            value={i18n.language}
            onChange={(e) => setLanguage(e.target.value as Language)}
          >
            {LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {l === 'en' ? 'English' : '中文'}
              </option>
            ))}
          </select>
        </div>
        {params.get('ended') ? <p className="signin-notice">{t('signedOutElsewhere')}</p> : null}
        {error ? (
          <div role="alert" className="signin-error">
            <p>{errorText(t, error)}</p>
            {requestId ? <p className="signin-help">{t('common:requestId', { id: requestId })}</p> : null}
          </div>
        ) : null}
        {field('tenantCode', t('tenantCode'), { autoComplete: 'organization' }, t('tenantCodeHelp'))}
        {field('username', t('username'), { autoComplete: 'username' })}
        {field('password', t('password'), { type: 'password', autoComplete: 'current-password' })}
        {captcha ? (
          <div className="signin-captcha">
            {field('captchaCode', t('captcha'), { autoComplete: 'off' })}
            <button type="button" className="signin-captcha-image" onClick={() => void loadCaptcha(values.tenantCode)}>
              <img src={captcha.image} alt={t('captchaRefresh')} height={32} />
            </button>
          </div>
        ) : null}
        <button type="submit" className="signin-submit" disabled={busy} aria-busy={busy}>
          {t('submit')}
        </button>
      </form>
    </main>
  );
}
