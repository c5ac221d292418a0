import { api, handleUnauthorized, setAccessToken, unwrap } from '../api/client';

/**
 * The signed-in session: the access token in memory, renewed before it expires through the
 * refresh cookie the server keeps out of reach of scripts (docs/decisions/0032-browser-sessions.md).
 * A reload starts with no token and refreshes silently; a session ended elsewhere ends here too.
 */
type Listener = (signedIn: boolean) => void;
const listeners = new Set<Listener>();
let timer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<string | null> | null = null;
let signedIn = false;

function adopt(tokens: { accessToken: string; expiresIn: number } | null) {
  clearTimeout(timer);
  setAccessToken(tokens?.accessToken ?? null);
  const now = tokens !== null;
  if (tokens) timer = setTimeout(() => void refresh(), Math.max(5, tokens.expiresIn - 60) * 1000);
  if (now !== signedIn) {
    signedIn = now;
    for (const l of listeners) l(now);
  }
}

/**
 * One refresh at a time, however many calls found their token expired together — and across tabs:
 * they share the cookie, and two tabs sending the same refresh token would look like a replay to
 * the server, which ends the session (a Web Lock orders them).
 */
export function refresh(): Promise<string | null> {
  const call = () => unwrap(api.POST('/api/auth/refresh', { body: {} }));
  refreshing ??= (async () => {
    try {
      const tokens = await (navigator.locks ? navigator.locks.request('atrium-refresh', call) : call());
      adopt(tokens);
      return tokens.accessToken;
    } catch {
      adopt(null);
      return null;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}
handleUnauthorized(refresh);

export type SignInInput = {
  username: string;
  password: string;
  tenantCode?: string;
  captchaId?: string;
  captchaCode?: string;
};

export async function signIn(input: SignInInput) {
  const answer = await unwrap(api.POST('/api/auth/login', { body: { ...input, cookie: true } }));
  adopt(answer);
  return answer.user;
}

export async function signOut() {
  try {
    await api.POST('/api/auth/logout');
  } finally {
    adopt(null);
  }
}

export const isSignedIn = () => signedIn;

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
