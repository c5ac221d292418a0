import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';

/**
 * The console's snapshot of `/api/openapi.json` (CONSOLE.md, "One client"): what the console's
 * types and permission map are generated from, compared with the live document by
 * test/platform/console-api-snapshot.test.ts.
 */
export const SNAPSHOT_FILE = join(import.meta.dirname, '../../../console/src/api/openapi.json');

/** The one command that rewrites the snapshot, the types and the permission map. */
export const REGENERATE = 'npm run api:generate';

const defaults = loadConfig({ NODE_ENV: 'test' });

/**
 * The settings that reach the document, and where they show. The snapshot is the document of an
 * instance in its default configuration: these are pinned to their defaults when it is taken
 * (the test configuration raises the login limit), so it is the same on every machine, and a
 * test changes every setting to prove no other place depends on one.
 */
export const DOCUMENT_SETTINGS: Record<string, { snapshot: string | undefined; places: string[] }> = {
  // servers and the OAuth2 scheme's endpoints: absolute links (docs/decisions/0028-absolute-links.md)
  PUBLIC_BASE_URL: {
    snapshot: defaults.publicBaseUrl,
    places: [
      '/servers/0/url',
      '/components/securitySchemes/OAuth2/flows/clientCredentials/tokenUrl',
      '/components/securitySchemes/OAuth2/flows/authorizationCode/tokenUrl',
      '/components/securitySchemes/OAuth2/flows/authorizationCode/refreshUrl',
    ],
  },
  // unset: the consent page is PUBLIC_BASE_URL + /oauth2/authorize
  OAUTH_CONSENT_URL: {
    snapshot: undefined,
    places: ['/components/securitySchemes/OAuth2/flows/authorizationCode/authorizationUrl'],
  },
  // the sign-in's x-rate-limit
  LOGIN_IP_LIMIT_PER_MINUTE: {
    snapshot: String(defaults.loginIpLimitPerMinute),
    places: ['/paths/~1api~1auth~1login/post/x-rate-limit/max'],
  },
};

/** The environment the snapshot's instance runs with (createTestApp `env`). */
export function snapshotEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, { snapshot }] of Object.entries(DOCUMENT_SETTINGS))
    if (snapshot !== undefined) env[name] = snapshot;
  return env;
}

/** The snapshot file's text: indented, so a change to the API is a readable diff in review. */
export const snapshotText = (doc: unknown) => `${JSON.stringify(doc, null, 2)}\n`;

/** JSON pointers of the values that differ between two documents (a key on one side only counts). */
export function differingPlaces(a: unknown, b: unknown, at = ''): string[] {
  if (a === b) return [];
  const objects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object';
  if (!objects || Array.isArray(a) !== Array.isArray(b)) return [at || '/'];
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(ao), ...Object.keys(bo)])];
  return keys.flatMap((k) => differingPlaces(ao[k], bo[k], `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
}

type Operation = Record<string, unknown> & { operationId?: string; responses?: Record<string, unknown> };
type Doc = Record<string, unknown> & { paths?: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const LIMIT = 15;

function operationsOf(doc: Doc): Map<string, Operation> {
  const ops = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    for (const [method, op] of Object.entries(item))
      if (METHODS.includes(method)) ops.set(`${method.toUpperCase()} ${path}`, op);
  return ops;
}

const same = (a: unknown, b: unknown) => differingPlaces(a, b).length === 0;

/** What changed in an operation: its parts, and for responses the statuses. */
function changedParts(before: Operation, after: Operation): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys.flatMap((k) => {
    if (same(before[k], after[k])) return [];
    if (k !== 'responses') return [k];
    const codes = [...new Set([...Object.keys(before.responses ?? {}), ...Object.keys(after.responses ?? {})])];
    return codes.filter((c) => !same(before.responses?.[c], after.responses?.[c])).map((c) => `responses.${c}`);
  });
}

function section(title: string, lines: string[]): string[] {
  if (!lines.length) return [];
  const shown = lines.slice(0, LIMIT).map((l) => `  ${l}`);
  if (lines.length > LIMIT) shown.push(`  … and ${lines.length - LIMIT} more`);
  return [`${title} (${lines.length}):`, ...shown];
}

/**
 * How the live document differs from the snapshot, as a reader of the API sees it: operations
 * added, removed and changed (which parts), shared schemas changed, and anything else at the top.
 */
export function driftSummary(snapshot: Doc, live: Doc): string[] {
  const before = operationsOf(snapshot);
  const after = operationsOf(live);
  const name = (route: string, op: Operation | undefined) => `${route}  ${op?.operationId ?? '(no operationId)'}`;
  const added = [...after].filter(([route]) => !before.has(route)).map(([route, op]) => name(route, op));
  const removed = [...before].filter(([route]) => !after.has(route)).map(([route, op]) => name(route, op));
  const changed = [...after].flatMap(([route, op]) => {
    const old = before.get(route);
    if (!old || same(old, op)) return [];
    return [`${name(route, op)}: ${changedParts(old, op).join(', ')}`];
  });
  const components = differingPlaces(snapshot.components, live.components)
    .map((p) => p.split('/').slice(1, 3).join('.'))
    .filter((p, i, all) => all.indexOf(p) === i);
  const rest = differingPlaces(
    { ...snapshot, paths: null, components: null },
    { ...live, paths: null, components: null },
  );
  return [
    ...section('operations added', added),
    ...section('operations removed', removed),
    ...section('operations changed', changed),
    ...section('components changed', components),
    ...section('elsewhere', rest),
  ];
}
