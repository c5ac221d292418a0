import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * A generated check over /api/openapi.json (decision 0028): every response field named like a
 * link (`url`, `link`, `*Url`, `*_uri`, …, and the fields of a `links` object) is declared
 * `format: uri` — absolute — or listed below with the reason it is not. A new route that hands out
 * a relative link fails here without a test of its own.
 */
type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: boolean | Schema;
};
type Doc = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>
  >;
  components: { schemas?: Record<string, Schema> };
};

/** Fields that hold a URL the service did not build, or a console route the console opens. */
const NOT_BUILT_HERE: { where: RegExp; why: string }[] = [
  {
    where: /^\/api\/(open-platform|payment)\/webhooks\S* \.data(\.list)?\.url$/,
    why: 'the subscriber’s endpoint, as it registered it',
  },
  { where: / \.data\.attemptLog\.url$/, why: 'the endpoint a webhook delivery went to: the subscriber’s' },
  {
    where: / \.data(\.list|\.client)?\.(homepageUrl|logoUrl)$/,
    why: 'an application’s own pages, as its owner entered them; empty for none',
  },
  {
    where: /^\/api\/payment\/channel-configs\S* \.data(\.list)?\.notifyUrl$/,
    why: 'as configured; empty: effectiveNotifyUrl',
  },
  {
    where: /^\/api\/frontend-errors\/\S+ \.data\.\S+\.(sourceUrl|pageUrl)$/,
    why: 'what a browser reported, truncated',
  },
  {
    where: /^\/api\/frontend-errors\/alerts\S* \.data(\.list)?\.webhookUrl$/,
    why: 'the alert rule’s receiver, as configured',
  },
  {
    where: /^\/api\/in-app-messages\S* \.data(\.list)?\.link$/,
    why: 'a console deep link as given: the console opens it; email, push, webhook and chat carry it absolute',
  },
  {
    where: /^\/api\/frontend-errors\/groups\/\{id\} \.data\.links\.(issue|replay)$/,
    why: 'console routes (spec §4.6 rule 4)',
  },
];

const LINK_NAME = /(^|_)(url|uri|link|href)$|[a-z](Url|Uri|Link|Href)$/;

let t: TestApp;
let doc: Doc;
beforeAll(async () => {
  t = await createTestApp();
  doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
});
afterAll(async () => t?.close());

const resolve = (s: Schema): Schema =>
  s.$ref ? (doc.components.schemas?.[s.$ref.replace('#/components/schemas/', '')] ?? {}) : s;

/** A string field is absolute when each of its string alternatives says `format: uri`. */
function absolute(s: Schema): boolean {
  const alternatives = (s.anyOf ?? s.oneOf ?? [s]).map(resolve);
  const strings = alternatives.filter(
    (a) => a.type === 'string' || (Array.isArray(a.type) && a.type.includes('string')),
  );
  return strings.length > 0 && strings.every((a) => a.format === 'uri');
}

/** Every link-like field under a schema, as `.path.to.field` → its schema. */
function linkFields(schema: Schema, path = '', inLinks = false, seen = new Set<Schema>()): [string, Schema][] {
  const s = resolve(schema);
  if (seen.has(s)) return [];
  seen.add(s);
  const nested = [s.items, ...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].filter((x): x is Schema => !!x);
  const out = nested.flatMap((n) => linkFields(n, path, inLinks, seen));
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const where = `${path}.${name}`;
    if (LINK_NAME.test(name) || inLinks) out.push([where, prop]);
    out.push(...linkFields(prop, where, name === 'links', seen));
  }
  return out;
}

describe('links in the API description', () => {
  it('declares every link-like response field absolute (format: uri), or lists why not', () => {
    const found: [string, Schema][] = [];
    for (const [path, item] of Object.entries(doc.paths))
      for (const op of Object.values(item))
        for (const response of Object.values(op.responses ?? {}))
          for (const media of Object.values(response.content ?? {}))
            if (media.schema) for (const [field, s] of linkFields(media.schema)) found.push([`${path} ${field}`, s]);

    const undeclared = found
      .filter(([where, s]) => !absolute(s) && !NOT_BUILT_HERE.some((x) => x.where.test(where)))
      .map(([where]) => where);
    expect([...new Set(undeclared)]).toEqual([]);
    // the check sees what it should: the links the service builds, declared absolute
    for (const where of [
      '/api/drive/share-links .data.url',
      '/api/drive/share-links .data.shortUrl',
      '/api/drive/public/s/{code} .data.url',
      '/api/tasks/{id} .data.resultUrl',
      '/api/files/{id} .data.url',
      '/api/payment/channel-configs/{id} .data.effectiveNotifyUrl',
      '/api/oauth2/authorize .data.redirectUrl',
      '/api/oauth2/authorize .redirectUrl',
      '/.well-known/oauth-authorization-server .jwks_uri',
    ]) {
      const schemas = found.filter(([w]) => w === where).map(([, s]) => s);
      expect(schemas.length, where).toBeGreaterThan(0);
      for (const s of schemas) expect(absolute(s), where).toBe(true);
    }
    // and every listed exception still names a field that exists
    for (const x of NOT_BUILT_HERE)
      expect(
        found.some(([w]) => x.where.test(w)),
        x.why,
      ).toBe(true);
  });
});
