import { buildBody, describeThrown } from './body';
import { BreadcrumbRing, instrumentNavigationAndClicks } from './breadcrumbs';
import { instrumentConsole } from './capture/console';
import { instrumentErrors } from './capture/errors';
import { instrumentHttp } from './capture/http';
import { instrumentWhiteScreen } from './capture/white-screen';
import { createDeduper, type Deduper } from './dedupe';
import { MAX_MESSAGE, truncate } from './limits';
import { createTransport, isEndpoint, type Transport } from './transport';
import type { BreadcrumbType, CaptureInput, InitOptions, ReportBody } from './types';

export type {
  Breadcrumb,
  BreadcrumbType,
  ErrorType,
  HttpDetails,
  InitOptions,
  Level,
  ReportBody,
  WhiteScreenOptions,
} from './types';

/** Replaced at build time with the package version; `init({ release })` overrides it. */
declare const __RELEASE__: string;
export const BUILD_RELEASE: string | undefined = typeof __RELEASE__ === 'string' ? __RELEASE__ : undefined;

interface Client {
  options: InitOptions;
  release?: string;
  sessionId?: string;
  replayId?: string;
  context: Record<string, unknown>;
  ring: BreadcrumbRing;
  dedupe: Deduper;
  transport: Transport;
  pending: Set<Promise<unknown>>;
  undo: Array<() => void>;
  busy: boolean;
}

let client: Client | undefined;

function ignored(message: string, patterns: Array<string | RegExp> | undefined): boolean {
  return !!patterns?.some((p) => (typeof p === 'string' ? message.includes(p) : p.test(message)));
}

/**
 * Sends a report; resolves with the server's answer (see Transport.send), or undefined when nothing
 * was sent (not initialised, ignored, deduplicated, dropped by beforeSend) or the answer is unreadable.
 */
function report(input: CaptureInput): Promise<unknown> {
  const c = client;
  // `busy` stops recursion when beforeSend (or anything it calls) logs or throws.
  if (!c || c.busy) return Promise.resolve(undefined);
  c.busy = true;
  try {
    const message = truncate(input.message || '(no message)', MAX_MESSAGE);
    if (ignored(message, c.options.ignore) || !c.dedupe.accept(input.type, message)) return Promise.resolve(undefined);
    let body: ReportBody | null = buildBody(input, {
      pageUrl: location.href,
      breadcrumbs: c.ring.list(),
      release: c.release,
      environment: c.options.environment,
      sessionId: c.sessionId,
      replayId: c.replayId,
      context: c.context,
    });
    if (c.options.beforeSend) body = c.options.beforeSend(body);
    if (!body) return Promise.resolve(undefined);
    const p: Promise<unknown> = c.transport.send(body).then((answer) => {
      c.pending.delete(p);
      return answer;
    });
    c.pending.add(p);
    return p;
  } catch {
    // The reporter must never break the page it watches.
    return Promise.resolve(undefined);
  } finally {
    c.busy = false;
  }
}

/** Starts capturing. Calling it again replaces the previous configuration. */
export function init(options: InitOptions): void {
  if (typeof window === 'undefined' || !options?.endpoint) return;
  destroy();
  const nativeFetch = typeof window.fetch === 'function' ? window.fetch.bind(window) : undefined;
  const ring = new BreadcrumbRing();
  const c: Client = {
    options,
    release: options.release ?? BUILD_RELEASE,
    sessionId: options.sessionId,
    context: {},
    ring,
    dedupe: createDeduper(),
    transport: createTransport(options.endpoint, options.siteKey, nativeFetch),
    pending: new Set(),
    undo: [],
    busy: false,
  };
  client = c;
  c.undo.push(instrumentErrors(report), instrumentNavigationAndClicks(ring));
  if (options.captureConsole !== false) c.undo.push(instrumentConsole(ring, report));
  if (options.captureHttp !== false) {
    c.undo.push(instrumentHttp(ring, report, (url) => isEndpoint(url, options.endpoint)));
  }
  if (options.whiteScreen !== false) c.undo.push(instrumentWhiteScreen(report, options.whiteScreen));
}

/**
 * Reports a caught error as js_error. Resolves with the server's answer when it was sent by fetch
 * (always with a site key) and answered JSON — Atrium's is `{ data: { accepted, groupId, eventId } }`,
 * so a page can show the person the event id —, else undefined. Never rejects.
 */
export function captureException(error: unknown, context?: Record<string, unknown>): Promise<unknown> {
  return report({ type: 'js_error', ...describeThrown(error), context });
}

/** Manual crash report (level fatal), e.g. from an error boundary or a watchdog; resolves as captureException. */
export function crash(reason: string | Error, extra?: Record<string, unknown>): Promise<unknown> {
  return report({ type: 'crash', ...describeThrown(reason), level: 'fatal', context: extra });
}

export function addBreadcrumb(type: BreadcrumbType, message: string, data?: Record<string, unknown>): void {
  client?.ring.add(type, message, data);
}

/** Merged into every report's `context` (e.g. a server requestId, a feature flag). */
export function setContext(context: Record<string, unknown>): void {
  if (client) Object.assign(client.context, context);
}

/** Stored as `context.user`; the server attributes signed-in users from the session itself. */
export function setUser(user: { id?: string | number; [key: string]: unknown } | null): void {
  if (!client) return;
  if (user) client.context.user = user;
  else delete client.context.user;
}

export function setSessionId(sessionId: string | undefined): void {
  if (client) client.sessionId = sessionId;
}

/** Set while session replay records, so the issue links to the replay. */
export function setReplayId(replayId: string | undefined): void {
  if (client) client.replayId = replayId;
}

/** Resolves once every report sent so far has been handed over (or failed). */
export function flush(): Promise<void> {
  return Promise.all(client ? [...client.pending] : []).then(() => undefined);
}

/** Stops capturing and restores every patched global. */
export function destroy(): void {
  const c = client;
  client = undefined;
  if (!c) return;
  for (const undo of c.undo.reverse()) undo();
  c.ring.clear();
}
