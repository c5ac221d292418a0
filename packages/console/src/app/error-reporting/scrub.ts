import type { ReportBody } from '@atrium/error-reporter';

/**
 * What never leaves the page in an error report (docs/decisions/0037): a share link's token (it
 * is the link's whole secret, and it sits in the path: /s/{token}, /api/drive/public/shares/{token}),
 * any query string or fragment (OAuth `state`, `code_challenge`, sign-in's `next`, search terms),
 * and anything shaped like a bearer token. Pure functions, so they are tested on their own.
 */
const SHARE_PATHS = /(\/s\/|\/api\/drive\/public\/shares\/)[^/?#\s"'<>)]+/g;
/** a path or URL followed by its query or fragment, in free text (a message, a stack, a breadcrumb) */
const QUERY_IN_TEXT = /((?:[a-z][a-z\d+.-]*:\/\/[^\s/?#"'<>]*)?\/[^\s?#"'<>]*)[?#][^\s"'<>)]*/gi;
const JWT = /\beyJ[\w-]+\.[\w-]+\.[\w-]+/g;
const BEARER = /\b(Bearer\s+)[\w.~+/=-]+/gi;

const tokens = (s: string) => s.replace(SHARE_PATHS, '$1:token').replace(JWT, '[token]').replace(BEARER, '$1[token]');

/** A URL without its query and fragment, its secret path segments replaced. */
export function scrubUrl(url: string): string {
  const i = url.search(/[?#]/);
  return tokens(i === -1 ? url : url.slice(0, i));
}

/** Free text with every URL in it scrubbed as scrubUrl does. */
export function scrubText(text: string): string {
  return tokens(text.replace(QUERY_IN_TEXT, '$1'));
}

function scrubValue(value: unknown): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (Array.isArray(value)) return value.map(scrubValue);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v)]));
  return value;
}

/**
 * The console's `beforeSend`: every URL and text scrubbed; null (not sent) for a request that never
 * got an answer — the person's own connection, which nobody can fix from a report.
 */
export function scrubReport(report: ReportBody): ReportBody | null {
  if (report.type === 'http_error' && report.http?.status === 0) return null;
  return {
    ...report,
    message: scrubText(report.message),
    stack: report.stack === undefined ? undefined : scrubText(report.stack),
    pageUrl: scrubUrl(report.pageUrl),
    sourceUrl: report.sourceUrl === undefined ? undefined : scrubUrl(report.sourceUrl),
    http: report.http ? { ...report.http, url: scrubUrl(report.http.url) } : undefined,
    breadcrumbs: scrubValue(report.breadcrumbs) as ReportBody['breadcrumbs'],
    context: report.context ? (scrubValue(report.context) as Record<string, unknown>) : undefined,
  };
}
