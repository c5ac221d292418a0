import { type Schema, sampleOf } from './sample-body.ts';

export type Operation = {
  operationId?: string;
  parameters?: { in: string; name: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};

export type FuzzCase = {
  /** what was broken, for the failure list */
  label: string;
  /** the field a validation error must name (`name`, `items.0.code`, a query or path name) */
  field?: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
};

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'a\ud800b';
/** longer than any field here allows, and than a URL may be */
const HUGE = 70_000;
const INT4_PAST = 2_147_483_648;
const PAST_SAFE = '9007199254740993';
/** an id no row has, inside every id column's range */
export const UNKNOWN_ID = 999_999_999;

type Req = { path: Record<string, string>; query: Record<string, string>; body: unknown };

const typeOf = (s: Schema | undefined): string | undefined => {
  if (!s) return undefined;
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return typeOf(alt.find((a) => a.type !== 'null'));
  return Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
};

/** Values that break a scalar of this schema; each is sent alone. */
function badScalars(s: Schema, inUrl: boolean): { label: string; value: unknown }[] {
  const type = typeOf(s);
  const out: { label: string; value: unknown }[] = [];
  const num = (v: number | string) => (inUrl ? String(v) : typeof v === 'string' ? Number(v) : v);
  if (type === 'integer' || type === 'number') {
    out.push({ label: 'past int4', value: num(INT4_PAST) });
    out.push({ label: 'past 2^53', value: inUrl ? PAST_SAFE : Number(PAST_SAFE) });
    out.push({ label: '1e308', value: inUrl ? '1e308' : 1e308 });
    out.push({ label: 'negative', value: num(-INT4_PAST - 1) });
    out.push({ label: 'wrong type', value: inUrl ? 'abc' : 'abc' });
    if (type === 'integer') out.push({ label: 'fraction', value: inUrl ? '1.5' : 1.5 });
  } else if (type === 'boolean') {
    out.push({ label: 'wrong type', value: inUrl ? 'maybe' : 'yes' });
  } else if (type === 'string') {
    out.push({ label: 'NUL', value: NUL });
    if (!inUrl) out.push({ label: 'lone surrogate', value: LONE_SURROGATE });
    out.push({ label: 'huge', value: 'x'.repeat(s.maxLength !== undefined ? s.maxLength + 1 : HUGE) });
    if (s.format === 'date-time') out.push({ label: 'bad date', value: '2026-13-45T99:00:00Z' });
    if (!inUrl) out.push({ label: 'wrong type', value: 12345 });
  } else if (type === 'array') {
    if (!inUrl) out.push({ label: 'wrong type', value: { not: 'an array' } });
    if (s.maxItems !== undefined && s.maxItems < 1000) {
      const item = sampleOf(s.items);
      out.push({ label: 'too many items', value: Array.from({ length: s.maxItems + 1 }, () => item) });
    }
  } else if (type === 'object') {
    if (!inUrl) out.push({ label: 'wrong type', value: ['not', 'an object'] });
  }
  return out;
}

function enc(v: unknown): string {
  return encodeURIComponent(String(v));
}

function build(method: string, path: string, r: Req, contentType?: string, raw?: string | Buffer): FuzzCase {
  const url =
    path.replace(/\{(\w+)\}/g, (_, name: string) => r.path[name] ?? '') +
    (Object.keys(r.query).length
      ? `?${Object.entries(r.query)
          .map(([k, v]) => `${k}=${v}`)
          .join('&')}`
      : '');
  const headers: Record<string, string> = {};
  let payload: string | Buffer | undefined;
  if (raw !== undefined) {
    payload = raw;
    if (contentType) headers['content-type'] = contentType;
  } else if (r.body !== undefined) {
    if (contentType === 'application/x-www-form-urlencoded') {
      payload = Object.entries(r.body as Record<string, unknown>)
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
        .join('&');
    } else {
      payload = JSON.stringify(r.body);
    }
    headers['content-type'] = contentType ?? 'application/json';
  }
  return { label: '', method: method.toUpperCase(), url, headers, payload };
}

const objectOf = (s: Schema | undefined) => s?.anyOf?.find((a) => a.type === 'object') ?? s;

/** Paths into a body: each property (nested to depth 2, array items through index 0). */
function bodyFields(s: Schema | undefined, prefix: string[], depth: number): { path: string[]; schema: Schema }[] {
  const type = typeOf(s);
  if (!s || depth > 2) return [];
  const obj = objectOf(s) ?? s;
  if (type === 'object' && obj.properties) {
    return Object.entries(obj.properties).flatMap(([k, sub]) => [
      { path: [...prefix, k], schema: sub },
      ...bodyFields(sub, [...prefix, k], depth + 1),
    ]);
  }
  if (type === 'array' && s.items) {
    return bodyFields(s.items, [...prefix, '0'], depth + 1).concat(
      typeOf(s.items) === 'object' ? [] : [{ path: [...prefix, '0'], schema: s.items }],
    );
  }
  return [];
}

/**
 * The body with one value set (or removed) at `path`; containers on the way that the minimal
 * sample left out are filled with their own minimal valid sample, so only `path` is wrong.
 */
function withValue(body: unknown, schema: Schema | undefined, path: string[], value: unknown, remove = false): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  let at: Record<string, unknown> = copy;
  let s = schema;
  for (const key of path.slice(0, -1)) {
    s = /^\d+$/.test(key) ? s?.items : objectOf(s)?.properties?.[key];
    if (at[key] === undefined || at[key] === null || typeof at[key] !== 'object') {
      at[key] = typeOf(s) === 'array' ? [] : (sampleOf(s) ?? {});
    }
    at = at[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  if (remove) delete at[last];
  else at[last] = value;
  return copy;
}

/** A multipart body cut off in the middle of its file part (a dropped connection, a hostile client). */
function truncatedMultipart(): { type: string; body: Buffer } {
  const b = 'fuzzboundary';
  const body = `--${b}\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\nhalf a fi`;
  return { type: `multipart/form-data; boundary=${b}`, body: Buffer.from(body) };
}

function multipartWith(filename: string, fields: Record<string, string>): { type: string; body: Buffer } {
  const b = 'fuzzboundary';
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${b}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  parts.push(
    `--${b}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: text/plain\r\n\r\nhello\r\n--${b}--\r\n`,
  );
  return { type: `multipart/form-data; boundary=${b}`, body: Buffer.from(parts.join('')) };
}

/**
 * Malformed requests for one operation of the OpenAPI document, made from what the document
 * says alone (as a tester holding only the published description would). Each case breaks one
 * thing, so a refusal can be checked for naming that thing (`field`). Bounded: a few values per
 * field, nested fields to a small depth, strings at most 70 KB.
 */
export function fuzzCases(path: string, method: string, op: Operation): FuzzCase[] {
  const params = op.parameters ?? [];
  const base: Req = { path: {}, query: {}, body: undefined };
  for (const p of params) {
    if (p.in === 'path') {
      base.path[p.name] = typeOf(p.schema) === 'integer' ? String(UNKNOWN_ID) : enc(sampleOf(p.schema, p.name));
    } else if (p.in === 'query' && p.required) {
      base.query[p.name] = enc(sampleOf(p.schema, p.name));
    }
  }
  const content = op.requestBody?.content ?? {};
  const mediaType = Object.keys(content)[0];
  const bodySchema = mediaType ? content[mediaType]?.schema : undefined;
  if (mediaType === 'application/json' || mediaType === 'application/x-www-form-urlencoded') {
    base.body = sampleOf(bodySchema);
  }
  const cases: FuzzCase[] = [];
  const add = (label: string, field: string | undefined, c: FuzzCase) => cases.push({ ...c, label, field });

  for (const p of params.filter((x) => x.in === 'path' || x.in === 'query')) {
    for (const bad of badScalars(p.schema, true)) {
      const r = structuredClone(base);
      (p.in === 'path' ? r.path : r.query)[p.name] = enc(bad.value);
      add(`${p.in} ${p.name}: ${bad.label}`, p.name, build(method, path, r, mediaType));
    }
  }
  if (mediaType === 'application/json' || mediaType === 'application/x-www-form-urlencoded') {
    const form = mediaType !== 'application/json';
    for (const f of bodyFields(bodySchema, [], 0)) {
      const field = f.path.join('.');
      for (const bad of badScalars(f.schema, false)) {
        // a form carries text only, and only text that has a UTF-8 encoding
        if (form && (typeof bad.value !== 'string' || !bad.value.isWellFormed())) continue;
        add(
          `body ${field}: ${bad.label}`,
          field,
          build(method, path, { ...base, body: withValue(base.body, bodySchema, f.path, bad.value) }, mediaType),
        );
      }
    }
    for (const key of bodySchema?.required ?? []) {
      add(
        `body ${key}: missing`,
        key,
        build(method, path, { ...base, body: withValue(base.body, bodySchema, [key], undefined, true) }, mediaType),
      );
    }
  }
  if (mediaType === 'multipart/form-data') {
    const t = truncatedMultipart();
    add('multipart: truncated', undefined, build(method, path, base, t.type, t.body));
    const nul = multipartWith('a\u0000b.txt', {});
    add('multipart: NUL file name', undefined, build(method, path, base, nul.type, nul.body));
    const textFields = Object.entries(bodySchema?.properties ?? {}).filter(([, f]) => f.format !== 'binary');
    for (const [name] of textFields) {
      const values = Object.fromEntries(textFields.map(([n, f]) => [n, String(sampleOf(f, n))]));
      const m = multipartWith('a.txt', { ...values, [name]: NUL });
      add(`multipart ${name}: NUL`, name, build(method, path, base, m.type, m.body));
    }
    add('multipart: no boundary', undefined, build(method, path, base, 'multipart/form-data', 'x'));
  }
  if (method !== 'get' && method !== 'options') {
    add('body: invalid JSON', undefined, build(method, path, base, 'application/json', '{"a":'));
    add('body: JSON array', undefined, build(method, path, base, 'application/json', '[1,2]'));
    add('body: text/plain', undefined, build(method, path, base, 'text/plain', 'hello'));
    add('body: XML', undefined, build(method, path, base, 'application/xml', '<a/>'));
    add(
      'body: 20,000 deep',
      undefined,
      build(method, path, base, 'application/json', `${'['.repeat(20_000)}${']'.repeat(20_000)}`),
    );
  }
  add('long segment below', undefined, build(method, `${path}/${'z'.repeat(300)}`, base, mediaType));
  return cases;
}
