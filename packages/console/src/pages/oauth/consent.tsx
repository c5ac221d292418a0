import { useQuery } from '@tanstack/react-query';
import { Button, Spin, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { QueryProvider } from '../../app/queries';
import { isSignedIn, refresh, signOut } from '../../app/session';
import { ErrorMessage } from '../../components/error-message';
import { type ConsentClient, fetchClient, fetchInfo, OAuthCallError, readRequest } from './authorize-calls';
import { ConsentCard } from './consent-card';
import { Frame } from './frame';

/**
 * The authorization endpoint the discovery document publishes (docs/decisions/0033): learn the
 * application and its tenant, have the person sign in there, check it is the right account, then
 * ask. Errors before the client and redirect URI are proven stay on this page (RFC 6749 §4.1.2.1);
 * after, they go back to the client through the server's redirectUrl.
 */
export default function ConsentPage() {
  return (
    <QueryProvider>
      <Consent />
    </QueryProvider>
  );
}

function Consent() {
  const { t } = useTranslation('oauth');
  const [params] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const request = useMemo(() => readRequest(params), [params]);
  const here = `${location.pathname}${location.search}`;

  const client = useQuery({
    queryKey: ['oauth', 'client', request.client_id, request.redirect_uri],
    queryFn: () => fetchClient(request),
    retry: false,
  });
  const session = useSession();
  const me = useQuery({
    queryKey: ['oauth', 'me'],
    queryFn: () => unwrap(api.GET('/api/auth/me')),
    enabled: session === 'in',
    gcTime: 0,
  });
  const rightAccount = client.data && me.data ? (me.data.tenant?.code ?? null) === client.data.tenantCode : false;
  const info = useQuery({
    queryKey: ['oauth', 'info', here],
    queryFn: () => fetchInfo(request),
    enabled: rightAccount,
    retry: false,
    gcTime: 0,
  });
  const backToClient = info.error instanceof OAuthCallError ? info.error.redirectUrl : undefined;
  useEffect(() => {
    // the client and its redirect URI are proven: the client asked wrongly and hears it there
    if (backToClient) window.location.assign(backToClient);
  }, [backToClient]);

  async function signInAsSomeoneElse(c: ConsentClient) {
    await signOut().catch(() => {});
    navigate(loginUrl(c, here), { replace: true });
  }

  if (client.error) return <Problem error={client.error} unproven />;
  if (!client.data || session === 'checking') return <Spin fullscreen tip={t('common:loading')} />;
  if (session === 'out') return <Navigate to={loginUrl(client.data, here)} replace />;
  if (me.error) return <Problem error={me.error} />;
  if (!me.data) return <Spin fullscreen tip={t('common:loading')} />;
  if (!rightAccount) {
    const who = me.data.user.nickname || me.data.user.username;
    return (
      <Frame title={t('wrongAccount.title')}>
        <Typography.Paragraph>
          {t('wrongAccount.signedInAs', { name: who, tenant: me.data.tenant?.name ?? t('platform') })}
        </Typography.Paragraph>
        <Typography.Paragraph>
          {client.data.tenantCode === null
            ? t('wrongAccount.platformApp', { app: client.data.name })
            : t('wrongAccount.tenantApp', { app: client.data.name, code: client.data.tenantCode })}
        </Typography.Paragraph>
        <Button type="primary" autoFocus block onClick={() => void signInAsSomeoneElse(client.data)}>
          {t('signInAsSomeoneElse')}
        </Button>
      </Frame>
    );
  }
  if (info.error && !backToClient) return <Problem error={info.error} />;
  if (!info.data) return <Spin fullscreen tip={t(backToClient ? 'returning' : 'common:loading')} />;
  return (
    <ConsentCard
      request={request}
      client={client.data}
      info={info.data}
      me={me.data}
      onSomeoneElse={() => void signInAsSomeoneElse(client.data)}
    />
  );
}

/** Sign-in into the application's tenant (none for a platform application), then back here. */
function loginUrl(client: ConsentClient, here: string): string {
  const q = new URLSearchParams({ ...(client.tenantCode ? { tenant: client.tenantCode } : {}), next: here });
  return `/login?${q}`;
}

/** Whether a session exists: a reload restores it silently through the refresh cookie. */
function useSession(): 'checking' | 'in' | 'out' {
  const [state, setState] = useState<'checking' | 'in' | 'out'>(isSignedIn() ? 'in' : 'checking');
  useEffect(() => {
    if (state === 'checking') void refresh().then((token) => setState(token ? 'in' : 'out'));
  }, [state]);
  return state;
}

/** An error shown here: with `unproven`, the client or redirect URI was never proven (RFC 6749 §4.1.2.1). */
function Problem({ error, unproven = false }: { error: unknown; unproven?: boolean }) {
  const { t } = useTranslation('oauth');
  const description = error instanceof OAuthCallError ? error.message : '';
  return (
    <Frame title={t('error.title')}>
      <ErrorMessage error={error} />
      {description ? <Typography.Text type="secondary">{t('error.detail', { description })}</Typography.Text> : null}
      {unproven ? (
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          {t('error.notSentBack')}
        </Typography.Paragraph>
      ) : null}
    </Frame>
  );
}
