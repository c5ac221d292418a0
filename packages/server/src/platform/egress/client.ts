import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher, request as undiciRequest } from 'undici';
import { VERSION } from '../../version.ts';
import { blockedReason, parseIp } from './address.ts';
import { type AllowEntry, addressAllowed, hostAllowed, normalizeHost } from './allow-list.ts';
import { EgressError, type EgressErrorCode } from './errors.ts';

/**
 * The one outbound HTTP client (webhooks, channels, providers). Every hop of a call:
 *  1. accepts http/https URLs only;
 *  2. resolves the host name once (all addresses) and refuses the call if ANY address is in a
 *     blocked range (address.ts) — unless the operator's allow-list names it;
 *  3. connects to exactly the addresses it checked: the connection's DNS lookup is replaced by
 *     one that answers those addresses, so a second, rebound answer is never used. Host header
 *     and TLS server name (SNI) stay those of the URL;
 *  4. follows redirects itself, each Location checked again from step 1.
 * A total deadline, a connect timeout and a response-size cap bound every call. A failure says
 * whether anything may have reached a destination (`EgressError.neverSent`): true only when no
 * connection was ever established during the call.
 */
export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Host name → every address it resolves to. Injected in tests; dns.lookup otherwise. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type EgressMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type EgressRequestOptions = {
  method?: EgressMethod;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** deadline of the whole call, redirects included; default 10 000 */
  timeoutMs?: number;
  /** deadline of each TCP/TLS connect; default the smaller of timeoutMs and 10 000 */
  connectTimeoutMs?: number;
  /** the transfer is aborted once the body exceeds this; default 5 MiB */
  maxResponseBytes?: number;
  /** default 5; 0 returns the 3xx response itself */
  maxRedirects?: number;
};

export type EgressResponse = {
  status: number;
  /** lower-case names; repeated headers joined with ", " (RFC 9110 §5.3) */
  headers: Record<string, string>;
  body: Buffer;
  /** the URL that answered, after redirects */
  url: string;
};

export type Egress = {
  request(url: string | URL, opts?: EgressRequestOptions): Promise<EgressResponse>;
  /** Checks a destination without calling it (DNS included): for validating a URL when it is saved. */
  check(url: string | URL): Promise<void>;
};

export const EGRESS_DEFAULTS = { timeoutMs: 10_000, maxResponseBytes: 5 * 1024 * 1024, maxRedirects: 5 };

/** Names of cloud metadata services; their addresses are blocked too, the names are refused before DNS. */
const BLOCKED_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Set by the connection itself, or meaningless across hops; a caller cannot choose them. */
const DROPPED_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'content-length']);
/** Credentials that must not follow a redirect to another origin (fetch, "HTTP-redirect fetch"). */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export const systemResolver: Resolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

type Destination = { url: URL; addresses: ResolvedAddress[] };

/** The remote side did not answer (as opposed to a destination refused by the guard). */
const UNREACHED = new Set<EgressErrorCode>(['egress.dns_failed', 'egress.network_error', 'egress.timeout']);

export function createEgress(
  opts: {
    allow?: AllowEntry[];
    resolve?: Resolver;
    /** told of each call whose destination could not be reached (the dependency failure counter) */
    onUnreached?: (code: EgressErrorCode) => void;
  } = {},
): Egress {
  const allow = opts.allow ?? [];
  const resolve = opts.resolve ?? systemResolver;

  /** Steps 1 and 2: the URL's addresses, every one of them allowed. */
  async function destination(input: string | URL, signal?: AbortSignal): Promise<Destination> {
    const text = String(input);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new EgressError('egress.bad_url', 'The URL is not valid', text);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new EgressError('egress.bad_scheme', 'Only http and https URLs can be called', text);
    }
    if (url.username || url.password) {
      throw new EgressError('egress.bad_url', 'URLs with credentials are not accepted', text);
    }
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const refuse = (detail: string, range?: string) =>
      new EgressError('egress.blocked_address', 'The destination address is not allowed', text, { detail, range });

    // The WHATWG parser has already turned 0x7f.1, 2130706433 and 0177.0.0.1 into 127.0.0.1.
    const literal = parseIp(url.hostname);
    if (literal) {
      const reason = addressAllowed(allow, literal, port) ? null : blockedReason(literal);
      if (reason) throw refuse(`${url.hostname}: ${reason}`, reason);
      const address = url.hostname.replace(/^\[|\]$/g, '');
      return { url, addresses: [{ address, family: literal.length === 4 ? 4 : 6 }] };
    }

    const host = normalizeHost(url.hostname);
    const namedInAllowList = hostAllowed(allow, host, port);
    if (!namedInAllowList && BLOCKED_HOSTS.has(host)) {
      throw new EgressError('egress.blocked_host', 'The destination host is not allowed', text, { detail: host });
    }
    let addresses: ResolvedAddress[];
    try {
      addresses = await abortable(resolve(host), signal);
    } catch (err) {
      if (err instanceof EgressError) throw err;
      throw new EgressError('egress.dns_failed', 'The destination host could not be resolved', text, { cause: err });
    }
    if (addresses.length === 0) throw new EgressError('egress.dns_failed', 'The destination host has no address', text);
    if (!namedInAllowList) {
      for (const a of addresses) {
        const bytes = parseIp(a.address);
        if (bytes && addressAllowed(allow, bytes, port)) continue;
        const reason = bytes ? blockedReason(bytes) : 'not an IP address';
        if (reason) throw refuse(`${host} → ${a.address}: ${reason}`);
      }
    }
    return { url, addresses };
  }

  async function request(input: string | URL, o: EgressRequestOptions = {}): Promise<EgressResponse> {
    const timeoutMs = o.timeoutMs ?? EGRESS_DEFAULTS.timeoutMs;
    const connectTimeoutMs = o.connectTimeoutMs ?? Math.min(timeoutMs, EGRESS_DEFAULTS.timeoutMs);
    const maxBytes = o.maxResponseBytes ?? EGRESS_DEFAULTS.maxResponseBytes;
    const maxRedirects = o.maxRedirects ?? EGRESS_DEFAULTS.maxRedirects;
    let current = String(input);
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new EgressError('egress.timeout', `No complete answer within ${timeoutMs} ms`, current)),
      timeoutMs,
    );
    let method: EgressMethod = o.method ?? 'GET';
    let body = o.body;
    let headers = outgoingHeaders(o.headers);
    // set once any hop has a connection: from then on a request may have been delivered
    let connected = false;
    const onConnected = () => {
      connected = true;
    };
    try {
      for (let hop = 0; ; hop++) {
        const dest = await destination(current, deadline.signal);
        const agent = pinnedAgent(dest.addresses, connectTimeoutMs, timeoutMs, onConnected);
        try {
          const res = await call(agent, dest.url, method, headers, body, deadline.signal);
          const location = res.headers.location;
          if (REDIRECTS.has(res.statusCode) && typeof location === 'string' && maxRedirects > 0) {
            discard(res);
            if (hop >= maxRedirects) {
              throw new EgressError('egress.too_many_redirects', `More than ${maxRedirects} redirects`, current);
            }
            const next = resolveLocation(location, dest.url, current);
            // RFC 9110 §15.4: 303 turns into GET; 301/302 after POST do so too, as every client does.
            if (res.statusCode === 303 ? method !== 'HEAD' : res.statusCode <= 302 && method === 'POST') {
              method = 'GET';
              body = undefined;
              headers = withoutHeaders(headers, ['content-type']);
            }
            if (next.origin !== dest.url.origin) headers = withoutHeaders(headers, CREDENTIAL_HEADERS);
            current = next.toString();
            continue;
          }
          return {
            status: res.statusCode,
            headers: flattenHeaders(res.headers),
            body: await readCapped(res, maxBytes, current),
            url: current,
          };
        } finally {
          await agent.destroy();
        }
      }
    } catch (err) {
      const failed = failure(err, deadline.signal, current).withNeverSent(!connected);
      if (UNREACHED.has(failed.code)) opts.onUnreached?.(failed.code);
      throw failed;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    request,
    check: async (url) => {
      try {
        await destination(url);
      } catch (err) {
        throw err instanceof EgressError ? err.withNeverSent(true) : err;
      }
    },
  };
}

/**
 * Step 3: an agent whose connections can only reach the checked addresses. `onConnected` runs
 * when a connection is ready (TCP, and TLS for https) — before that, no request byte can leave.
 */
function pinnedAgent(
  addresses: ResolvedAddress[],
  connectTimeoutMs: number,
  timeoutMs: number,
  onConnected: () => void,
): Agent {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = addresses.filter((a) => !family || a.family === family);
    const first = usable[0];
    if (!first) {
      callback(Object.assign(new Error('No checked address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
  const connector = buildConnector({ lookup, timeout: connectTimeoutMs });
  const connect: buildConnector.connector = (options, callback) =>
    connector(options, (...result) => {
      if (result[0] === null) onConnected();
      callback(...result);
    });
  return new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
}

function call(
  agent: Agent,
  url: URL,
  method: EgressMethod,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  return undiciRequest(url, { dispatcher: agent, method, headers, body, signal });
}

/** Reads the body, aborting the transfer as soon as it passes `max` bytes. */
async function readCapped(res: Dispatcher.ResponseData, max: number, url: string): Promise<Buffer> {
  const tooLarge = () => new EgressError('egress.too_large', `The response is larger than ${max} bytes`, url);
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    discard(res);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      discard(res);
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Stops a body we will not read; the abort it causes is expected, not an error to report. */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => {});
  res.body.destroy();
}

function resolveLocation(location: string, base: URL, current: string): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new EgressError('egress.bad_url', 'The redirect location is not a valid URL', current);
  }
}

/** Anything thrown while talking to the remote side, as an EgressError. */
function failure(err: unknown, signal: AbortSignal, url: string): EgressError {
  if (err instanceof EgressError) return err;
  if (signal.aborted && signal.reason instanceof EgressError) return signal.reason;
  const code = (err as { code?: string }).code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new EgressError('egress.timeout', 'The destination did not answer in time', url, { cause: err });
  }
  return new EgressError('egress.network_error', 'The destination could not be reached', url, {
    detail: code ?? (err as Error).message,
    cause: err,
  });
}

function outgoingHeaders(given: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = { 'user-agent': `Atrium/${VERSION}` };
  for (const [name, value] of Object.entries(given ?? {})) {
    const key = name.toLowerCase();
    if (!DROPPED_HEADERS.has(key)) out[key] = value;
  }
  return out;
}

function withoutHeaders(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** A promise that also settles when the signal fires (dns.lookup itself cannot be cancelled). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolvePromise, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolvePromise, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
