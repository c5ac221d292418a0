import type { BreadcrumbRing } from '../breadcrumbs';
import type { CaptureInput } from '../types';

type Report = (input: CaptureInput) => void;

/**
 * Absolute URL without query string or fragment: keeps tokens out of reports and lets repeats of the
 * same endpoint dedupe.
 */
export function bareUrl(url: string): string {
  let abs = url;
  try {
    abs = new URL(url, location.href).href;
  } catch {
    // Keep what the caller passed.
  }
  const i = abs.search(/[?#]/);
  return i === -1 ? abs : abs.slice(0, i);
}

function outcome(
  ring: BreadcrumbRing,
  report: Report,
  method: string,
  rawUrl: string,
  status: number,
  requestId?: string | null,
): void {
  method = method.toUpperCase();
  const url = bareUrl(rawUrl);
  ring.add('network', `${method} ${url} ${status || 'failed'}`, { method, url, status });
  if (status === 0 || status >= 500) {
    report({
      type: 'http_error',
      message: status ? `${method} ${url} failed with ${status}` : `${method} ${url} network error`,
      http: { method, url, status },
      // the server's id of the failed request, so its log lines can be found (spec §2.5 context)
      context: requestId ? { requestId } : undefined,
    });
  }
}

/** `X-Request-Id` of an answer; null when absent or not readable (a cross-origin answer that does not expose it). */
const REQUEST_ID = 'x-request-id';

/**
 * Wraps fetch and XMLHttpRequest: every request becomes a network breadcrumb, and a 5xx response or a
 * network failure becomes an http_error (with `context.requestId` from the answer's X-Request-Id). `isOwn` filters out the reporter's endpoint; an aborted
 * request is the caller's choice, not a failure, so it is not reported.
 */
export function instrumentHttp(ring: BreadcrumbRing, report: Report, isOwn: (url: string) => boolean): () => void {
  const w = window;
  const origFetch = w.fetch;
  if (origFetch) {
    w.fetch = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      const req = typeof Request !== 'undefined' && input instanceof Request ? input : undefined;
      const url = req ? req.url : String(input);
      const method = init?.method || req?.method || 'GET';
      const p = origFetch.call(w, input, init);
      if (isOwn(url)) return p;
      p.then(
        (res) => outcome(ring, report, method, url, res.status, res.headers.get(REQUEST_ID)),
        (err: unknown) => {
          if (!(err && (err as Error).name === 'AbortError')) outcome(ring, report, method, url, 0);
        },
      );
      return p;
    } as typeof fetch;
  }

  const proto = w.XMLHttpRequest?.prototype;
  const origOpen = proto?.open;
  const origSend = proto?.send;
  type Tracked = XMLHttpRequest & { __atrium?: { method: string; url: string } };
  if (proto && origOpen && origSend) {
    proto.open = function (this: Tracked, method: string, url: string | URL, ...rest: unknown[]) {
      this.__atrium = { method, url: String(url) };
      return (origOpen as (...a: unknown[]) => void).call(this, method, url, ...rest);
    } as XMLHttpRequest['open'];
    proto.send = function (this: Tracked, body?: Document | XMLHttpRequestBodyInit | null) {
      const info = this.__atrium;
      if (info && !isOwn(info.url)) {
        let aborted = false;
        this.addEventListener('abort', () => {
          aborted = true;
        });
        // loadend fires once after load, error, timeout or abort; status is 0 on network failure.
        this.addEventListener('loadend', () => {
          if (!aborted)
            outcome(
              ring,
              report,
              info.method,
              this.responseURL || info.url,
              this.status,
              this.getResponseHeader(REQUEST_ID),
            );
        });
      }
      return origSend.call(this, body);
    };
  }

  return () => {
    if (origFetch) w.fetch = origFetch;
    if (proto && origOpen && origSend) {
      proto.open = origOpen;
      proto.send = origSend;
    }
  };
}
