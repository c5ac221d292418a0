import { captureException, init, setUser } from '@atrium/error-reporter';
import { api } from '../../api/client';
import { scrubReport } from './scrub';

/**
 * The reporter itself, a chunk of its own loaded after the first paint (index.ts). Same origin,
 * the console's site key, no credentials: the reports land in the platform's console site
 * whoever is signed in (docs/decisions/0037).
 */
const ENDPOINT = '/api/frontend-errors';

/** One id per browser tab session: counts affected sessions without following anyone. */
function tabSession(): string {
  const KEY = 'atrium.errorSession';
  try {
    const known = sessionStorage.getItem(KEY);
    if (known) return known;
    const made = crypto.randomUUID();
    sessionStorage.setItem(KEY, made);
    return made;
  } catch {
    return crypto.randomUUID();
  }
}

const eventIdOf = (answer: unknown): number | undefined => {
  const id = (answer as { data?: { eventId?: unknown } } | undefined)?.data?.eventId;
  return typeof id === 'number' ? id : undefined;
};

export async function start() {
  const { data } = await api.GET('/api/frontend-errors/console-site');
  const siteKey = data?.data.siteKey;
  if (!siteKey) return null;
  init({
    endpoint: ENDPOINT,
    siteKey,
    release: __CONSOLE_RELEASE__,
    environment: import.meta.env.MODE,
    sessionId: tabSession(),
    // React and antd log what they also throw: the throw is reported; the log would be its twin
    captureConsole: false,
    beforeSend: scrubReport,
  });
  return {
    capture: (error: unknown, context?: Record<string, unknown>) => captureException(error, context).then(eventIdOf),
    setUser: (user: { id: number; tenantId: number | null } | null) => setUser(user),
  };
}
