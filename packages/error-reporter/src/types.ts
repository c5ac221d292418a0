/** The seven report types the server accepts (spec §2.5). */
export type ErrorType =
  | 'js_error'
  | 'promise_rejection'
  | 'resource_error'
  | 'console_error'
  | 'http_error'
  | 'white_screen'
  | 'crash';

export type Level = 'fatal' | 'error' | 'warning' | 'info';

export type BreadcrumbType = 'navigation' | 'click' | 'network' | 'console';

export interface Breadcrumb {
  type: BreadcrumbType;
  message: string;
  data?: Record<string, unknown>;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

export interface HttpDetails {
  method: string;
  url: string;
  /** 0 when the request failed at the network level. */
  status: number;
}

/** The JSON body POSTed to the endpoint. Field names are the server contract: do not rename. */
export interface ReportBody {
  type: ErrorType;
  message: string;
  stack?: string;
  sourceUrl?: string;
  pageUrl: string;
  line?: number;
  column?: number;
  breadcrumbs: Breadcrumb[];
  release?: string;
  environment?: string;
  level?: Level;
  context?: Record<string, unknown>;
  http?: HttpDetails;
  sessionId?: string;
  replayId?: string;
}

export interface WhiteScreenOptions {
  /** Milliseconds after window `load` before sampling. Default 3000. */
  delay?: number;
  /** Selectors of elements that count as "nothing rendered". Default html, body, #app, #root. */
  wrappers?: string[];
}

export interface InitOptions {
  /** Absolute or page-relative URL of POST /api/frontend-errors. */
  endpoint: string;
  /** Sent as header X-Analytics-Site-Key (forces fetch keepalive; sendBeacon cannot set headers). */
  siteKey?: string;
  /** Defaults to the version baked in at build time. Must equal the release used at source-map upload. */
  release?: string;
  environment?: string;
  sessionId?: string;
  /** Reports whose message contains a string or matches a RegExp are dropped. */
  ignore?: Array<string | RegExp>;
  /** Last chance to edit a report; return null to drop it. */
  beforeSend?: (report: ReportBody) => ReportBody | null;
  /** Pass false to turn white-screen detection off. */
  whiteScreen?: false | WhiteScreenOptions;
  /** Pass false to leave console.error alone (no console_error reports, no console breadcrumbs). */
  captureConsole?: boolean;
  /** Pass false to leave fetch and XMLHttpRequest alone (no http_error, no network breadcrumbs). */
  captureHttp?: boolean;
}

/** What a capture module hands to the client; the client fills in the rest. */
export interface CaptureInput {
  type: ErrorType;
  message: string;
  stack?: string;
  sourceUrl?: string;
  line?: number;
  column?: number;
  level?: Level;
  context?: Record<string, unknown>;
  http?: HttpDetails;
}
