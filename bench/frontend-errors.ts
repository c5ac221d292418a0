import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { type Rss, withRss } from './files.ts';
import { ratioTarget, type Target, verdict } from './targets.ts';

/**
 * The front-end error scenario of `npm run bench` (issue 6, scope item 7): sustained anonymous
 * ingestion on `POST /api/frontend-errors` for 30 s, then the stored events counted through the
 * API against the 2xx answers (nothing lost). The yardstick is a bare Fastify POST route that
 * parses the same JSON bodies and answers 202, in a child process of its own (this file is its
 * entry point), driven by the same request stream in the same run.
 */
export const BARE_REPORTS_SCRIPT = fileURLToPath(import.meta.url);
const PATH = '/api/frontend-errors';
const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const MEASURE_SECONDS = 30;
/** the target: accepted/s ≥ 0.15× the bare Fastify POST of the same body */
const GOAL = 0.15;
/** distinct fingerprints, drawn with a skew: a few hot issues, a long tail first seen late in the run */
const FINGERPRINTS = 500;
const SESSIONS = 2000;
/** request bodies generated up front, cycled, so autocannon spends no CPU building JSON */
const BODIES = 8192;
/**
 * The route allows 120 reports per client IP per minute and has no setting to lift it. The
 * service runs with TRUST_PROXY=true and each request names one of these many client addresses
 * in X-Forwarded-For, cycled: each address sees one request in ADDRESSES, i.e. under the limit
 * up to ADDRESSES × 2 requests/s. The limit is still checked (a cache increment per request).
 */
const ADDRESSES = 16_384;
const USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

// ---- bare Fastify (child process: `node bench/frontend-errors.ts` with PORT)
if (process.argv[1] === BARE_REPORTS_SCRIPT) await serveBare();

async function serveBare() {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  // parses the JSON body (Fastify's default parser) and answers 202 with an envelope of the same shape
  app.post(PATH, async (req, reply) => {
    reply.code(202);
    return { code: 0, data: { accepted: typeof (req.body as { message?: unknown }).message === 'string' } };
  });
  app.get('/ready', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
  process.on('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}

// ---- the request stream
/** Deterministic (seeded) so both servers get the same reports in the same order. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Letters only: the fingerprint erases digits from the message, so the variable name carries k. */
function name(k: number): string {
  let s = '';
  for (let n = k + 26; n > 0; n = Math.floor(n / 26)) s = String.fromCharCode(97 + (n % 26)) + s;
  return s;
}

function reportBody(k: number, session: number, at: number): string {
  const v = name(k);
  const message = `TypeError: ${v} is undefined`;
  return JSON.stringify({
    type: 'js_error',
    message,
    // the top frame's column differs per fingerprint too, as it would for another call site
    stack: `${message}\n    at render (https://shop.example.com/app.min.js:1:${2000 + k})\n    at commit (https://shop.example.com/vendor.min.js:2:811)`,
    pageUrl: 'https://shop.example.com/cart',
    release: '1.0.0',
    environment: 'production',
    sessionId: `bench-session-${name(session)}`,
    breadcrumbs: Array.from({ length: 5 }, (_, i) => ({
      type: 'click',
      message: 'button#buy',
      timestamp: at - (5 - i) * 1000,
    })),
  });
}

/**
 * k in [0, FINGERPRINTS) with density ∝ 1/√k: issue 0 gets ~4.5% of reports, the tail a few each,
 * so new issues keep appearing for thousands of requests. The same bodies for every server.
 */
function bodies() {
  const rand = prng(0x5eed);
  const now = Date.now();
  const firstSeen = new Map<number, number>();
  const list = Array.from({ length: BODIES }, (_, i) => {
    const k = Math.floor(FINGERPRINTS * rand() ** 2);
    if (!firstSeen.has(k)) firstSeen.set(k, i);
    return reportBody(k, Math.floor(SESSIONS * rand()), now);
  });
  const firsts = [...firstSeen.values()];
  return {
    list,
    fingerprints: firstSeen.size,
    /** request index (0-based) of the last first report of a fingerprint */
    lastNew: Math.max(...firsts),
    newAfter1000: firsts.filter((i) => i >= 1000).length,
  };
}

const BODY_SET = bodies();

/** A fresh cursor over the bodies and client addresses, from the start. */
function requestStream() {
  let n = 0;
  return () => {
    const i = n++;
    const a = i % ADDRESSES;
    return {
      body: BODY_SET.list[i % BODIES] as string,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-forwarded-for': `10.${a >> 8}.${a & 255}.1`,
      },
    };
  };
}

// ---- the measurement
type Service = { child: ChildProcess; url: string; dataDir: string };

/** What run.ts lends the scenario. */
export type ReportHarness = {
  startService: (env: Record<string, string>) => Promise<Service>;
  startScript: (
    script: string,
    env: Record<string, string>,
    readyPath: string,
  ) => Promise<{ child: ChildProcess; url: string }>;
  stop: (child: ChildProcess) => Promise<void>;
  signIn: (base: string) => Promise<string>;
};

type Load = {
  acceptedPerSec: number;
  p50: number;
  p99: number;
  /** 2xx answers over warm-up + measured */
  answered2xx: number;
  non2xx: number;
  errors: number;
  /** sent but unanswered when autocannon stopped (each run); the server may still have stored them */
  cut: number;
};

export type ReportRow = {
  server: 'bare Fastify' | 'Atrium';
  database: string;
  rss: Rss;
  /** events stored (probe + warm-up + measured); null for the bare server */
  stored: number | null;
  groups: number | null;
  /** reports sent before the load (the probe), stored too */
  probes: number;
} & Load;

async function load(base: string, next: () => { body: string; headers: Record<string, string> }): Promise<Load> {
  const opts = {
    url: base + PATH,
    connections: CONNECTIONS,
    requests: [
      {
        method: 'POST' as const,
        path: PATH,
        // autocannon keeps the returned object as this request's definition: a fresh one each time
        setupRequest: (req: Record<string, unknown>) => ({ ...req, ...next() }),
      },
    ],
  };
  const warm = await autocannon({ ...opts, duration: WARMUP_SECONDS });
  const r = await autocannon({ ...opts, duration: MEASURE_SECONDS });
  const answered = (x: typeof r) => x['1xx'] + x['2xx'] + x['3xx'] + x['4xx'] + x['5xx'];
  return {
    acceptedPerSec: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    answered2xx: warm['2xx'] + r['2xx'],
    non2xx: warm.non2xx + r.non2xx,
    errors: warm.errors + warm.timeouts + r.errors + r.timeouts,
    cut: Math.max(0, warm.requests.sent - answered(warm)) + Math.max(0, r.requests.sent - answered(r)),
  };
}

/** The bare Fastify POST route in its own process, with nothing else running. */
export async function bareReportRow(h: ReportHarness): Promise<ReportRow> {
  const served = await h.startScript(BARE_REPORTS_SCRIPT, {}, '/ready');
  try {
    const measured = await withRss(served.child.pid, () => load(served.url, requestStream()));
    return {
      server: 'bare Fastify',
      database: '—',
      rss: measured.rss,
      stored: null,
      groups: null,
      probes: 0,
      ...measured.result,
    };
  } finally {
    await h.stop(served.child);
  }
}

/** A fresh service (TRUST_PROXY=true), on its embedded PostgreSQL. */
export async function atriumReportRow(h: ReportHarness, database: string): Promise<ReportRow> {
  const service = await h.startService({ TRUST_PROXY: 'true' });
  try {
    const token = await h.signIn(service.url);
    await probe(service.url, token);
    const measured = await withRss(service.child.pid, () => load(service.url, requestStream()));
    const stored = await settledTotal(service.url, token, '/api/frontend-errors/events?pageSize=1');
    const groups = await total(service.url, token, '/api/frontend-errors/groups?pageSize=1');
    return { server: 'Atrium', database, rss: measured.rss, stored, groups, probes: 1, ...measured.result };
  } finally {
    await h.stop(service.child);
    rmSync(service.dataDir, { recursive: true, force: true });
  }
}

/**
 * One report before the load: it must be accepted and stored with the X-Forwarded-For address,
 * or the rate limit would count every request against 127.0.0.1 and the run would be 429s.
 */
async function probe(base: string, token: string) {
  const ip = '203.0.113.7';
  const res = await fetch(base + PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, 'x-forwarded-for': ip },
    body: reportBody(FINGERPRINTS, 0, Date.now()),
  });
  const text = await res.text();
  const data = (JSON.parse(text) as { data?: { accepted?: boolean } }).data;
  if (res.status !== 202 || data?.accepted !== true) throw new Error(`POST ${PATH} answered ${res.status}: ${text}`);
  const listed = await fetch(`${base}/api/frontend-errors/events?pageSize=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const page = (await listed.json()) as { data: { list: { ip: string }[] } };
  if (page.data.list[0]?.ip !== ip)
    throw new Error(`the probe report was stored with ip ${page.data.list[0]?.ip}, expected ${ip}: is TRUST_PROXY on?`);
}

async function total(base: string, token: string, path: string): Promise<number> {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text}`);
  return (JSON.parse(text) as { data: { total: number } }).data.total;
}

/** Requests cut by autocannon's stop may still be committing: read until two reads 500 ms apart agree. */
async function settledTotal(base: string, token: string, path: string): Promise<number> {
  let last = await total(base, token, path);
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await total(base, token, path);
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** Bare first (alone), then the service. */
export async function frontendErrorRows(h: ReportHarness, database: string): Promise<ReportRow[]> {
  return [await bareReportRow(h), await atriumReportRow(h, database)];
}

/** The service's accepted/s ÷ the bare POST's, against the target. */
export function frontendErrorTargets(rows: ReportRow[]): Target[] {
  const bare = rows.find((r) => r.server === 'bare Fastify');
  const fmt = (n: number) => `${n.toLocaleString('en-US', { maximumFractionDigits: 0 })} accepted/s`;
  return rows.flatMap((r) =>
    r.server === 'Atrium' && bare
      ? [
          ratioTarget(
            `POST ${PATH} vs bare Fastify POST`,
            { text: fmt(r.acceptedPerSec), n: r.acceptedPerSec },
            { text: fmt(bare.acceptedPerSec), n: bare.acceptedPerSec },
            GOAL,
            [r, bare].every((x) => x.non2xx === 0 && x.errors === 0) &&
              r.stored !== null &&
              r.stored >= r.probes + r.answered2xx,
          ),
        ]
      : [],
  );
}

// ---- the report section
type Table = (head: string[], body: string[][], textColumns?: number) => string[];

/** The "## Front-end errors" section of bench/results/latest.md. */
export function frontendErrorSection(rows: ReportRow[], table: Table, extraNotes: string[] = []): string[] {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const ms = (n: number) => (n < 1 ? '<1' : fmt(n));
  const bare = rows.find((r) => r.server === 'bare Fastify');
  const expected = (r: ReportRow) => r.probes + r.answered2xx;
  const [target] = frontendErrorTargets(rows);
  const body = rows.map((r) => [
    r.server === 'bare Fastify' ? `bare Fastify, POST ${PATH} → 202` : `POST ${PATH}`,
    r.database,
    fmt(r.acceptedPerSec),
    ms(r.p50),
    ms(r.p99),
    fmt(r.non2xx + r.errors),
    fmt(expected(r)),
    r.stored === null ? '—' : fmt(r.stored),
    r.stored === null ? '—' : `${r.stored - expected(r) >= 0 ? '+' : ''}${fmt(r.stored - expected(r))} (cut ${r.cut})`,
    r.groups === null ? '—' : fmt(r.groups),
    `${fmt(r.rss.startMiB)} → ${fmt(r.rss.peakMiB)} MiB`,
    bare ? fmt(r.acceptedPerSec / bare.acceptedPerSec, 3) : '—',
    r.server === 'Atrium' && target ? verdict(target) : '—',
  ]);
  const notes: string[] = [];
  for (const r of rows) {
    if (r.non2xx > 0 || r.errors > 0)
      notes.push(
        `${r.server} (${r.database}): ${r.non2xx} non-2xx responses, ${r.errors} errors — not a valid measurement`,
      );
    if (r.stored !== null && r.stored < expected(r))
      notes.push(`${r.server} (${r.database}): ${expected(r) - r.stored} reports answered 2xx are not stored — LOST`);
    if (r.stored !== null && r.stored - expected(r) > r.cut)
      notes.push(
        `${r.server} (${r.database}): ${r.stored - expected(r)} more events stored than 2xx answers, more than the ${r.cut} requests cut at the stop`,
      );
  }
  return [
    '## Front-end errors',
    '',
    `Sustained anonymous ingestion on \`POST ${PATH}\`: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ` +
      `${MEASURE_SECONDS} s measured per row, a fresh service (embedded PostgreSQL, a new DATA_DIR). Each request is one \`js_error\` report ` +
      '(message, a 3-frame stack, pageUrl, release, environment, a sessionId, 5 click breadcrumbs; about 700 bytes) ' +
      `cycling over ${fmt(BODIES)} pre-built bodies (a fixed seed) with ${BODY_SET.fingerprints} distinct fingerprints, ` +
      'skewed: the hottest gets ~4.5% of reports, the tail a few each, so issues are still new after the start ' +
      `(${BODY_SET.newAfter1000} first seen after the 1,000th request, the last at request ${fmt(BODY_SET.lastNew + 1)}; ` +
      'after that every report is an upsert of an existing issue), and ' +
      `${fmt(SESSIONS)} sessions. The route's limit of 120 reports per IP per minute has no setting: the service ` +
      `runs with TRUST_PROXY=true and the requests cycle over ${fmt(ADDRESSES)} X-Forwarded-For addresses (the limit ` +
      'is checked on every request, never reached). Bare Fastify = one POST route in its own process that parses ' +
      'the same JSON bodies and answers 202, same request stream. Accepted/s = 2xx answers ÷ the measured seconds; ' +
      `ratio = ÷ the bare row (target ≥ ${GOAL.toFixed(2)}×). ` +
      '2xx answers counts the probe report, warm-up and measured; stored = `total` of ' +
      '`GET /api/frontend-errors/events` as the platform administrator once it stops changing; stored − 2xx must ' +
      'be ≥ 0 (nothing lost) and at most the requests autocannon cut in flight at its stop (they may have been ' +
      "stored without an answer being counted). Groups = issues stored, the probe's included. RSS: VmRSS of the serving process every 100 ms from before the " +
      'warm-up to its peak.',
    '',
    ...table(
      [
        'scenario',
        'database',
        'accepted/s',
        'p50 ms',
        'p99 ms',
        'non-2xx + errors',
        '2xx answers',
        'stored events',
        'stored − 2xx',
        'groups',
        'RSS start → peak',
        'ratio to bare',
        'target',
      ],
      body,
    ),
    '',
    ...[...notes, ...extraNotes].map((n) => `- Note: ${n}`),
    ...(notes.length + extraNotes.length ? [''] : []),
  ];
}

/** The line that dates a section written alone. */
export function frontendErrorsAloneNote(loadAtStart: number): string {
  return (
    `run alone (BENCH_ONLY=frontend-errors) on ${new Date().toISOString()}, Node ${process.version}, ` +
    `${os.cpus().length} cores; 1-minute load average ${loadAtStart.toFixed(2)} before, ` +
    `${(os.loadavg()[0] ?? 0).toFixed(2)} after. The sections above, and the Targets table at the top, are from the last full run`
  );
}
