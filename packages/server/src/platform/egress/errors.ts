import { AppError } from '../http/errors.ts';

/**
 * Why an outbound call was refused or failed. Refusals of the destination (the URL a user or
 * an administrator gave) are 400s; failures of the remote side are 502, a timeout 504.
 * Modules usually catch these and record `code` (a delivery attempt's error, for example).
 */
export type EgressErrorCode =
  | 'egress.bad_url'
  | 'egress.bad_scheme'
  | 'egress.blocked_host'
  | 'egress.blocked_address'
  | 'egress.dns_failed'
  | 'egress.network_error'
  | 'egress.timeout'
  | 'egress.too_large'
  | 'egress.too_many_redirects';

const STATUS: Record<EgressErrorCode, number> = {
  'egress.bad_url': 400,
  'egress.bad_scheme': 400,
  'egress.blocked_host': 400,
  'egress.blocked_address': 400,
  'egress.dns_failed': 502,
  'egress.network_error': 502,
  'egress.timeout': 504,
  'egress.too_large': 502,
  'egress.too_many_redirects': 502,
};

export type EgressErrorOptions = {
  detail?: string;
  cause?: unknown;
  /** for a refused IP literal: the blocked range it lies in (address.ts), safe to show */
  range?: string;
  neverSent?: boolean;
};

export class EgressError extends AppError {
  readonly code: EgressErrorCode;
  /** the URL of the hop that failed (after redirects, the redirect target) */
  readonly url: string;
  /**
   * For logs only: which address or range was refused. Kept out of `message`, which a client
   * may see, so the service does not become an oracle for internal DNS.
   */
  readonly detail: string | undefined;
  /** the blocked range of a refused IP literal (the caller wrote the address: no oracle) */
  readonly range: string | undefined;
  /**
   * true: no connection to any destination was made for this call — the guard refused it, DNS
   * failed, the connection was refused or never established — so the remote side certainly
   * received nothing and the call may be repeated without doubling anything. false (the default,
   * the safe side): a request may have been delivered (a timeout or reset after connecting, an
   * unreadable answer, a refusal after a redirect).
   */
  readonly neverSent: boolean;

  constructor(code: EgressErrorCode, message: string, url: string, opts: EgressErrorOptions = {}) {
    super(STATUS[code], code, message);
    this.code = code;
    this.url = url;
    this.detail = opts.detail;
    this.range = opts.range;
    this.neverSent = opts.neverSent ?? false;
    if (opts.cause !== undefined) this.cause = opts.cause;
  }

  /** The same error, saying whether anything was sent (known only when the call ends). */
  withNeverSent(neverSent: boolean): EgressError {
    if (neverSent === this.neverSent) return this;
    return new EgressError(this.code, this.message, this.url, {
      detail: this.detail,
      range: this.range,
      cause: this.cause,
      neverSent,
    });
  }
}

/** The URL's `host:port` (the scheme's port when none is written), as EGRESS_ALLOW_HOSTS spells an entry. */
export function hostPortOf(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol === 'https:' ? 443 : 80)}`;
  } catch {
    return null;
  }
}

/**
 * What failed, as one sentence for an administrator (stored on a record, shown by a console): the
 * destination's host:port and, for a refusal of the guard, the EGRESS_ALLOW_HOSTS entry that
 * allows it. It names only what the caller wrote — the URL's host and port, the range of an IP
 * literal — never the addresses a name resolved to (those stay in `detail`, for the log).
 */
export function describeEgressFailure(err: EgressError): string {
  const target = hostPortOf(err.url);
  if (!target) return err.message;
  const allow = `allow it with EGRESS_ALLOW_HOSTS=${target}`;
  switch (err.code) {
    case 'egress.blocked_address':
      return err.range
        ? `the egress guard refused ${target}: ${err.range} addresses are not called unless listed; ${allow}`
        : `the egress guard refused ${target}: the name resolves to an address that is not called unless listed; ${allow}`;
    case 'egress.blocked_host':
      return `the egress guard refused ${target}: a cloud metadata host name; ${allow}`;
    case 'egress.dns_failed':
      return `${target}: the host name could not be resolved (DNS)`;
    case 'egress.network_error': {
      const why = err.detail && /^[A-Z][A-Z0-9_]+$/.test(err.detail) ? ` (${err.detail})` : '';
      return err.neverSent ? `${target}: the connection failed${why}` : `${target}: the connection broke${why}`;
    }
    case 'egress.timeout':
      return err.neverSent
        ? `${target}: no connection within the deadline`
        : `${target}: no complete answer within the deadline`;
    default:
      return `${target}: ${err.message}`;
  }
}
