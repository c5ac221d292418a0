import { ApiCallError } from '../../api/client';
import { onSessionChange } from '../session';

/**
 * The console reports its own errors to the service's monitor (docs/decisions/0037). This part is
 * in the first chunk and tiny: it notes what goes wrong from the first moment; the reporter
 * (reporter.ts, @atrium/error-reporter) loads after the first paint, asks the service for the
 * console's site key, and sends what was noted. No key (its site disabled), or the dev server:
 * nothing is ever sent.
 */
type Capture = (error: unknown, context?: Record<string, unknown>) => Promise<number | undefined>;
type Noted = { error: unknown; context?: Record<string, unknown>; done(eventId: number | undefined): void };

const MAX_NOTED = 20;
const noted: Noted[] = [];
let capture: Capture | null = null;
let stopped = false;
/** who is signed in, as ids only (the reporter's setUser) */
let user: { id: number; tenantId: number | null } | null = null;
let applyUser: ((u: typeof user) => void) | null = null;

/** Errors the console shows the person itself: a 5xx is reported by the reporter's fetch watch, with its request id. */
const expected = (error: unknown) => error instanceof ApiCallError;

/**
 * Reports a caught error (an error boundary's); resolves with the monitor's event id once it is
 * stored, undefined when nothing is sent.
 */
export function reportError(error: unknown, context?: Record<string, unknown>): Promise<number | undefined> {
  if (expected(error) || stopped) return Promise.resolve(undefined);
  if (capture) return capture(error, context);
  return new Promise((done) => {
    if (noted.length < MAX_NOTED) noted.push({ error, context, done });
    else done(undefined);
  });
}

/** The signed-in person's user and tenant ids travel with reports (nothing else about them). */
export function setReportingUser(next: typeof user) {
  user = next;
  applyUser?.(next);
}

// Before the reporter is there: uncaught errors and unhandled rejections are noted, and sent
// once it is (as caught errors, saying which event they came from). Then its own listeners take over.
const onError = (e: ErrorEvent) => {
  if (e.error !== undefined && e.error !== null) void reportError(e.error, { before: 'error' });
};
const onRejection = (e: PromiseRejectionEvent) => void reportError(e.reason, { before: 'unhandledrejection' });
addEventListener('error', onError);
addEventListener('unhandledrejection', onRejection);

/** Loads the reporter after the first paint (the sign-in page does not wait for it). */
export function startErrorReporting() {
  // the dev server (`vite`, mode development): errors are in the developer's own console
  if (import.meta.env.MODE === 'development') return stop();
  const load = async () => {
    try {
      const reporter = await import('./reporter');
      const started = await reporter.start();
      if (!started) return stop();
      removeEventListener('error', onError);
      removeEventListener('unhandledrejection', onRejection);
      capture = started.capture;
      applyUser = started.setUser;
      applyUser(user);
      for (const n of noted.splice(0)) void capture(n.error, n.context).then(n.done);
    } catch {
      // the reporter or its key could not be loaded: the console works on without it
      stop();
    }
  };
  // after the first paint: a frame, then the next task
  requestAnimationFrame(() => setTimeout(() => void load(), 0));
}

function stop() {
  stopped = true;
  removeEventListener('error', onError);
  removeEventListener('unhandledrejection', onRejection);
  for (const n of noted.splice(0)) n.done(undefined);
}

onSessionChange((signedIn) => {
  if (!signedIn) setReportingUser(null);
});
