import { Spin } from 'antd';
import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation } from 'react-router';
import { isSignedIn, onSessionChange, refresh } from './session';

/**
 * Signed-in pages: a reload restores the session silently (the refresh cookie); without one, or
 * once it ends (signed out, revoked elsewhere), the person goes to sign-in and comes back after.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const location = useLocation();
  const [state, setState] = useState<'checking' | 'in' | 'out'>(isSignedIn() ? 'in' : 'checking');
  const [wasIn, setWasIn] = useState(isSignedIn());

  useEffect(
    () =>
      onSessionChange((now) => {
        if (!now) setWasIn(true);
        setState(now ? 'in' : 'out');
      }),
    [],
  );
  useEffect(() => {
    if (state === 'checking') void refresh().then((token) => setState(token ? 'in' : 'out'));
    if (state === 'in') setWasIn(true);
  }, [state]);

  if (state === 'checking') return <Spin fullscreen tip={t('loading')} />;
  if (state === 'out') {
    const next = encodeURIComponent(`${location.pathname}${location.search}`);
    return <Navigate to={`/login?next=${next}${wasIn ? '&ended=1' : ''}`} replace />;
  }
  return children;
}
