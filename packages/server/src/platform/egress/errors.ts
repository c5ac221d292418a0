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

export class EgressError extends AppError {
  readonly code: EgressErrorCode;
  /** the URL of the hop that failed (after redirects, the redirect target) */
  readonly url: string;
  /**
   * For logs only: which address or range was refused. Kept out of `message`, which a client
   * may see, so the service does not become an oracle for internal DNS.
   */
  readonly detail: string | undefined;

  constructor(code: EgressErrorCode, message: string, url: string, opts?: { detail?: string; cause?: unknown }) {
    super(STATUS[code], code, message);
    this.code = code;
    this.url = url;
    this.detail = opts?.detail;
    if (opts?.cause !== undefined) this.cause = opts.cause;
  }
}
