import type { ReportBody } from './types';

/** Browsers cap keepalive/beacon bodies at 64 KiB in flight; stay under it with room for other beacons. */
const KEEPALIVE_LIMIT = 60_000;

export interface Transport {
  /** Resolves with the server's answer when it went by fetch and came back as JSON, else undefined. */
  send(body: ReportBody): Promise<unknown>;
}

/**
 * sendBeacon is used only when no site key is configured (it cannot set headers) and the endpoint is
 * same-origin (a cross-origin application/json beacon needs a CORS preflight that browsers handle
 * inconsistently); otherwise fetch with keepalive so the report survives page unload.
 * `nativeFetch` is the fetch captured before the http wrapper is installed, so these requests are
 * never seen by it. Never throws and never rejects. A beacon's answer cannot be read.
 */
export function createTransport(
  endpoint: string,
  siteKey: string | undefined,
  nativeFetch: typeof fetch | undefined,
): Transport {
  return {
    send(body) {
      try {
        const json = JSON.stringify(body);
        const small = json.length < KEEPALIVE_LIMIT;
        if (!siteKey && small && isSameOrigin(endpoint) && typeof navigator.sendBeacon === 'function') {
          if (navigator.sendBeacon(endpoint, new Blob([json], { type: 'application/json' }))) return Promise.resolve();
        }
        if (!nativeFetch) return Promise.resolve();
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (siteKey) headers['X-Analytics-Site-Key'] = siteKey;
        return nativeFetch(endpoint, { method: 'POST', body: json, headers, keepalive: small }).then(
          (res) => res.json().catch(() => undefined),
          () => undefined,
        );
      } catch {
        return Promise.resolve();
      }
    },
  };
}

function isSameOrigin(url: string): boolean {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

/** True for the reporter's own endpoint (ignoring query string), so its requests are never reported. */
export function isEndpoint(url: string, endpoint: string): boolean {
  try {
    const a = new URL(url, location.href);
    const b = new URL(endpoint, location.href);
    return a.origin === b.origin && a.pathname === b.pathname;
  } catch {
    return false;
  }
}
