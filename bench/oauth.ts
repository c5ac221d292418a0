import type { ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { type Rss, withRss } from './files.ts';
import { ratioTarget, type Target, verdict } from './targets.ts';

/**
 * The OAuth scenario of `npm run bench` (issue 5, scope item 7): client_credentials tokens/s and
 * introspections/s of the service, side by side with `oidc-provider` (npm) configured for the same
 * grant in the same run. oidc-provider runs in a child process of its own (this file is its entry
 * point) while nothing else is running, so it shares neither the event loop nor the CPU with the
 * service; autocannon drives both from the bench process with the same calls.
 */
export const OIDC_PROVIDER_SCRIPT = fileURLToPath(import.meta.url);
const SCOPE = 'drive:read';
const FORM = 'application/x-www-form-urlencoded';
const ATRIUM_PATHS = { token: '/api/oauth2/token', introspect: '/api/oauth2/token/introspect' };
/** oidc-provider's default routes */
const OIDC_PATHS = { token: '/token', introspect: '/token/introspection' };
/** the issue's target: Atrium ≥ 1.0× oidc-provider, tokens and introspections */
const GOAL = 1.0;

// ---- oidc-provider (child process: `node bench/oauth.ts` with PORT, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET)
if (process.argv[1] === OIDC_PROVIDER_SCRIPT) await serveOidcProvider();

async function serveOidcProvider() {
  const { default: Provider } = await import('oidc-provider');
  const port = Number(process.env.PORT);
  // Own signing key and cookie key, so it runs as configured for production rather than on its dev keys.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [
      {
        client_id: String(process.env.OIDC_CLIENT_ID),
        client_secret: String(process.env.OIDC_CLIENT_SECRET),
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        // the counterpart of the application's allowedScopes
        scope: SCOPE,
      },
    ],
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      devInteractions: { enabled: false },
    },
    scopes: [SCOPE],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'bench', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    // no adapter: its default in-memory store. No resource indicator is sent, so tokens are opaque.
  });
  const server = provider.listen(port, '127.0.0.1');
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

// ---- the scenario
export type Measure = { reqPerSec: number; p50: number; p99: number; non2xx: number; errors: number };
type Scenario = { name: string; method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string };
type Service = { child: ChildProcess; url: string };

/** What run.ts lends the scenario: its autocannon measurement and its child processes. */
export type Harness = {
  measure: (base: string, s: Scenario) => Promise<Measure>;
  signIn: (base: string) => Promise<string>;
  stop: (child: ChildProcess) => Promise<void>;
  startOidcProvider: (env: Record<string, string>) => Promise<{ child: ChildProcess; url: string }>;
};

export type OAuthRow = {
  server: 'Atrium' | 'oidc-provider';
  database: string;
  call: 'token' | 'introspect';
  scenario: string;
  rss: Rss;
} & Measure;

type Client = { clientId: string; clientSecret: string };

/** oidc-provider in its own process with nothing else running: tokens/s, then introspections/s. */
export async function oidcProviderRows(h: Harness): Promise<OAuthRow[]> {
  const client = { clientId: 'bench-client', clientSecret: randomBytes(32).toString('base64url') };
  const served = await h.startOidcProvider({
    OIDC_CLIENT_ID: client.clientId,
    OIDC_CLIENT_SECRET: client.clientSecret,
  });
  try {
    return await load(h, 'oidc-provider', 'memory', served.url, served.child.pid, OIDC_PATHS, client);
  } finally {
    await h.stop(served.child);
  }
}

/** The service's rows against a running service, for a confidential application created through the admin API. */
export async function atriumRows(h: Harness, database: string, service: Service): Promise<OAuthRow[]> {
  const client = await createApp(service.url, await h.signIn(service.url));
  return load(h, 'Atrium', database, service.url, service.child.pid, ATRIUM_PATHS, client);
}

/** `POST /api/open-platform/apps` as the platform administrator. */
async function createApp(base: string, adminToken: string): Promise<Client> {
  const res = await fetch(`${base}/api/open-platform/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `bench-${randomBytes(3).toString('hex')}`,
      clientType: 'confidential',
      grantTypes: ['client_credentials'],
      redirectUris: [],
      allowedScopes: [SCOPE],
    }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST /api/open-platform/apps answered ${res.status}: ${text}`);
  const { data } = JSON.parse(text) as { data: Client };
  return { clientId: data.clientId, clientSecret: data.clientSecret };
}

/**
 * The two autocannon runs against one server, the same calls for both: HTTP Basic client
 * authentication (RFC 6749 §2.3.1), form bodies. Each is probed once first, so a refusal fails
 * the run with the server's answer instead of being counted as non-2xx.
 */
async function load(
  h: Harness,
  server: OAuthRow['server'],
  database: string,
  base: string,
  pid: number | undefined,
  paths: { token: string; introspect: string },
  client: Client,
): Promise<OAuthRow[]> {
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
  const headers = { authorization: basic, 'content-type': FORM };
  const tokenBody = new URLSearchParams({ grant_type: 'client_credentials', scope: SCOPE }).toString();
  const issued = await probe(server, base + paths.token, headers, tokenBody);
  if (typeof issued.access_token !== 'string' || issued.scope !== SCOPE)
    throw new Error(`${server} ${paths.token}: no access token for scope ${SCOPE}: ${JSON.stringify(issued)}`);
  // both sides must issue opaque tokens (a JWT would be signed here and not looked up there)
  if (issued.access_token.split('.').length === 3)
    throw new Error(`${server} ${paths.token}: the access token is a JWT, expected an opaque one`);
  const token: Scenario = { name: '', method: 'POST', path: paths.token, headers, body: tokenBody };
  const tokens = await withRss(pid, () => h.measure(base, token));

  // a token issued after the token run, so the store is at its fullest when it is looked up
  const fresh = await probe(server, base + paths.token, headers, tokenBody);
  const introspectBody = new URLSearchParams({ token: String(fresh.access_token) }).toString();
  const answer = await probe(server, base + paths.introspect, headers, introspectBody);
  if (answer.active !== true)
    throw new Error(`${server} ${paths.introspect}: token not active: ${JSON.stringify(answer)}`);
  const introspect: Scenario = { name: '', method: 'POST', path: paths.introspect, headers, body: introspectBody };
  const introspections = await withRss(pid, () => h.measure(base, introspect));

  return [
    {
      server,
      database,
      call: 'token',
      scenario: `POST ${paths.token} client_credentials`,
      rss: tokens.rss,
      ...tokens.result,
    },
    {
      server,
      database,
      call: 'introspect',
      scenario: `POST ${paths.introspect}`,
      rss: introspections.rss,
      ...introspections.result,
    },
  ];
}

async function probe(server: string, url: string, headers: Record<string, string>, body: string) {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${server} POST ${new URL(url).pathname} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Atrium ÷ oidc-provider for each call, against the issue's target. */
export function oauthTargets(rows: OAuthRow[]): Target[] {
  const fmt = (n: number) => `${n.toLocaleString('en-US', { maximumFractionDigits: 0 })} req/s`;
  return rows.flatMap((r) => {
    const ref = rows.find((o) => o.server === 'oidc-provider' && o.call === r.call);
    if (r.server !== 'Atrium' || !ref) return [];
    const valid = [r, ref].every((x) => x.non2xx === 0 && x.errors === 0);
    return [
      ratioTarget(
        `OAuth ${r.call === 'token' ? 'client_credentials tokens/s' : 'introspections/s'} vs oidc-provider`,
        { text: fmt(r.reqPerSec), n: r.reqPerSec },
        { text: fmt(ref.reqPerSec), n: ref.reqPerSec },
        GOAL,
        valid,
      ),
    ];
  });
}

// ---- the report section
type Table = (head: string[], body: string[][], textColumns?: number) => string[];

/** The "## OAuth" section of bench/results/latest.md. */
export function oauthSection(
  rows: OAuthRow[],
  bare: Measure,
  settings: { connections: number; warmupSeconds: number; measureSeconds: number },
  table: Table,
  extraNotes: string[] = [],
): string[] {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const ms = (n: number) => (n < 1 ? '<1' : fmt(n));
  const reference = (call: OAuthRow['call']) => rows.find((r) => r.server === 'oidc-provider' && r.call === call);
  const targets = oauthTargets(rows);
  let atrium = 0;
  const body = [
    [
      'bare Fastify, GET / → {ok:true}',
      '—',
      '—',
      fmt(bare.reqPerSec),
      ms(bare.p50),
      ms(bare.p99),
      '—',
      '—',
      '1.000',
      '—',
    ],
    ...rows.map((r) => {
      const ref = reference(r.call);
      const target = r.server === 'Atrium' && ref ? targets[atrium++] : undefined;
      return [
        r.scenario,
        r.server,
        r.database,
        fmt(r.reqPerSec),
        ms(r.p50),
        ms(r.p99),
        `${fmt(r.rss.startMiB)} → ${fmt(r.rss.peakMiB)} MiB`,
        r.server === 'Atrium' && ref ? fmt(r.reqPerSec / ref.reqPerSec, 3) : '—',
        fmt(r.reqPerSec / bare.reqPerSec, 3),
        target ? verdict(target) : '—',
      ];
    }),
  ];
  const failed = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
  const notes = [
    ...failed.map(
      (r) =>
        `${r.scenario} (${r.server}, ${r.database}): ${r.non2xx} non-2xx responses, ${r.errors} errors — not a valid measurement`,
    ),
    ...extraNotes,
  ];
  return [
    '## OAuth',
    '',
    `client_credentials tokens/s and introspections/s, ${settings.connections} connections, ` +
      `${settings.warmupSeconds} s warm-up then ${settings.measureSeconds} s measured per row; the same calls on ` +
      `both servers: HTTP Basic client authentication, form bodies, \`grant_type=client_credentials&scope=${SCOPE}\`, ` +
      'then `token=<one access token>` to the introspection endpoint. Atrium: a confidential application created by ' +
      `the platform administrator with allowedScopes [${SCOPE}]; every token is a row written to the database and ` +
      'every check reads the application and the token from it. oidc-provider (npm, in a child process of its own, ' +
      'measured while nothing else runs): one client with the same grant and scope, opaque access tokens, its ' +
      'default in-memory adapter (an LRU of 1,000 entries in the process, nothing persisted). Ratio to ' +
      `oidc-provider = Atrium req/s ÷ oidc-provider req/s for the same call (target ≥ ${GOAL.toFixed(1)}×); ratio to bare = req/s ÷ bare Fastify. ` +
      "RSS: VmRSS of the serving process sampled every 100 ms, from before the row's warm-up to its peak.",
    '',
    ...table(
      [
        'scenario',
        'server',
        'database',
        'req/s',
        'p50 ms',
        'p99 ms',
        'RSS start → peak',
        'ratio to oidc-provider',
        'ratio to bare',
        'target',
      ],
      body,
      3,
    ),
    '',
    ...notes.map((n) => `- Note: ${n}`),
    ...(notes.length ? [''] : []),
  ];
}

/** The line that dates a section written alone. */
export function aloneNote(only: string, loadAtStart: number): string {
  return (
    `run alone (BENCH_ONLY=${only}) on ${new Date().toISOString()}, Node ${process.version}, ` +
    `${os.cpus().length} cores; 1-minute load average ${loadAtStart.toFixed(2)} before, ` +
    `${(os.loadavg()[0] ?? 0).toFixed(2)} after. The sections above, and the Targets table at the top, are from the last full run`
  );
}
