import { type Schema, sampleOf } from './sample-body.ts';

export type Operation = {
  operationId?: string;
  security?: object[];
  parameters?: { in: string; name: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};

export type FuzzCase = {
  /** what was broken, for the failure list */
  label: string;
  /** the field a validation error must name (`name`, `items.0.code`, a query or path name) */
  field?: string;
  /**
   * The document says this request is wrong (a value its schema refuses, text with NUL, bytes
   * that are not what their media type says, an id that names nothing): a 2xx is a failure.
   * Otherwise the case is hostile but allowed (a long text where no maximum is declared, a body
   * sent where none is taken): any answer but a 5xx or an undeclared one will do.
   */
  malformed: boolean;
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

/**
 * Values a valid request of the operation takes beyond what its document's samples give: the
 * path values of real resources, and what a valid request needs that the document cannot mark
 * required (one of two fields, a real space for an upload), as query values and body fields.
 */
export type GivenValues = {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
};
type Bad = { label: string; value: unknown; malformed: boolean };

const typeOf = (s: Schema | undefined): string | undefined => {
  if (!s) return undefined;
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return typeOf(alt.find((a) => a.type !== 'null'));
  return Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
};

/** The schema lists every value it takes (an enum, a const, a union of them). */
function listed(s: Schema): boolean {
  const alts = (s.anyOf ?? s.oneOf ?? [s]).filter((a) => a.type !== 'null');
  return alts.length > 0 && alts.every((a) => a.const !== undefined || Array.isArray(a.enum));
}

/** The bounds of a number schema, through a nullable union. */
const numberOf = (s: Schema): Schema => (s.anyOf ?? s.oneOf)?.find((a) => a.type !== 'null') ?? s;

/** Values that break a scalar of this schema, or stress it within what it allows; each is sent alone. */
function badScalars(s: Schema, inUrl: boolean): Bad[] {
  const type = typeOf(s);
  const out: Bad[] = [];
  const add = (label: string, value: unknown, malformed: boolean) => out.push({ label, value, malformed });
  if (type === 'integer' || type === 'number') {
    const { maximum = Number.POSITIVE_INFINITY, minimum } = numberOf(s);
    const num = (v: number) => (inUrl ? String(v) : v);
    // past int4 within a larger maximum is allowed: it must still fit its column (no request.invalid_value)
    add('past int4', num(INT4_PAST), INT4_PAST > maximum);
    add('past 2^53', inUrl ? PAST_SAFE : Number(PAST_SAFE), true);
    add('1e308', inUrl ? '1e308' : 1e308, 1e308 > maximum);
    add('negative', num(-INT4_PAST - 1), minimum !== undefined);
    if (minimum !== undefined && minimum > -INT4_PAST) add('below minimum', num(minimum - 1), true);
    add('wrong type', 'abc', true);
    if (type === 'integer') add('fraction', inUrl ? '1.5' : 1.5, true);
  } else if (type === 'boolean') {
    add('wrong type', inUrl ? 'maybe' : 'yes', true);
  } else if (type === 'string') {
    add('NUL', NUL, true);
    if (!inUrl) add('lone surrogate', LONE_SURROGATE, true);
    const max = s.maxLength ?? (s.anyOf ?? s.oneOf)?.find((a) => a.maxLength !== undefined)?.maxLength;
    add('huge', 'x'.repeat(max !== undefined ? max + 1 : HUGE), max !== undefined);
    if ((s.minLength ?? 0) >= 1) add('empty', '', true);
    if (listed(s)) add('not listed', 'zz-not-listed', true);
    if (s.format === 'date-time') add('bad date', '2026-13-45T99:00:00Z', true);
    if (s.format === 'email') add('bad email', 'not an address', true);
    if (s.format === 'uri') add('bad uri', 'not a uri', true);
    if (!inUrl) add('wrong type', 12345, true);
  } else if (type === 'array') {
    if (!inUrl) add('wrong type', { not: 'an array' }, true);
    const item = sampleOf(s.items);
    if (s.maxItems !== undefined && s.maxItems < 1000) {
      add(
        'too many items',
        Array.from({ length: s.maxItems + 1 }, () => item),
        true,
      );
    }
    if (!inUrl && (s.minItems ?? 0) >= 1) add('no items', [], true);
    const scalarItems = ['integer', 'string'].includes(typeOf(s.items) ?? '');
    if (!inUrl && s.uniqueItems && scalarItems && (s.maxItems ?? 2) >= 2) {
      add('duplicates', [item, item], true);
    }
  } else if (type === 'object') {
    if (!inUrl) add('wrong type', ['not', 'an object'], true);
  }
  return out;
}

/**
 * A body field that names another row (`roleId`, `nodeIds`, `ids`): an id no row has must be
 * refused by the service (400 or 404 naming it, spec: "rules that need the database answer the
 * same shape"), never stored as a dangling reference or answered with a 500.
 */
const REFERENCE = /(^|[a-z])(Id|Ids)$|^ids$/;

function enc(v: unknown): string {
  return encodeURIComponent(String(v));
}

function build(method: string, path: string, r: Req, contentType?: string, raw?: string | Buffer) {
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
  return { method: method.toUpperCase(), url, headers, payload };
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

const BOUNDARY = 'fuzzboundary';

/** A multipart body cut off in the middle of its file part (a dropped connection, a hostile client). */
function truncatedMultipart(): { type: string; body: Buffer } {
  const body = `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\nhalf a fi`;
  return { type: `multipart/form-data; boundary=${BOUNDARY}`, body: Buffer.from(body) };
}

/** A form of text fields, then the file (as a browser sends it). */
function multipartWith(filename: string, fields: Record<string, string>): { type: string; body: Buffer } {
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  parts.push(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: text/plain\r\n\r\nhello\r\n--${BOUNDARY}--\r\n`,
  );
  return { type: `multipart/form-data; boundary=${BOUNDARY}`, body: Buffer.from(parts.join('')) };
}

/**
 * Malformed and hostile requests for one operation of the OpenAPI document, made from what the
 * document says (as a tester holding only the published description would) and, for the path,
 * the values of real resources (`given`, so an update reaches its row and the checks of the
 * service behind it; an unknown id where none is given). Each case breaks one thing, so a
 * refusal can be checked for naming that thing (`field`). Bounded: a few values per field,
 * nested fields to a small depth, strings at most 70 KB.
 */
export function fuzzCases(path: string, method: string, op: Operation, given: GivenValues = {}): FuzzCase[] {
  const params = op.parameters ?? [];
  const pathValues = given.path ?? {};
  const base: Req = { path: {}, query: { ...given.query }, body: undefined };
  for (const p of params) {
    if (p.in === 'path') {
      base.path[p.name] =
        pathValues[p.name] !== undefined
          ? enc(pathValues[p.name])
          : typeOf(p.schema) === 'integer'
            ? String(UNKNOWN_ID)
            : enc(sampleOf(p.schema, p.name));
    } else if (p.in === 'query' && p.required && base.query[p.name] === undefined) {
      base.query[p.name] = enc(sampleOf(p.schema, p.name));
    }
  }
  const content = op.requestBody?.content ?? {};
  const mediaType = Object.keys(content)[0];
  const bodySchema = mediaType ? content[mediaType]?.schema : undefined;
  const structured = mediaType === 'application/json' || mediaType === 'application/x-www-form-urlencoded';
  if (structured) base.body = { ...(sampleOf(bodySchema) as object), ...given.body };
  const cases: FuzzCase[] = [];
  const add = (label: string, field: string | undefined, malformed: boolean, c: ReturnType<typeof build>) =>
    cases.push({ ...c, label, field, malformed });

  for (const p of params.filter((x) => x.in === 'path' || x.in === 'query')) {
    // an empty path segment is another URL (a trailing slash), not a value of this one
    for (const bad of badScalars(p.schema, true).filter((b) => p.in === 'query' || b.label !== 'empty')) {
      const r = structuredClone(base);
      (p.in === 'path' ? r.path : r.query)[p.name] = enc(bad.value);
      add(`${p.in} ${p.name}: ${bad.label}`, p.name, bad.malformed, build(method, path, r, mediaType));
    }
  }
  if (structured) {
    const form = mediaType !== 'application/json';
    const withField = (f: string[], value: unknown, remove = false) =>
      build(method, path, { ...base, body: withValue(base.body, bodySchema, f, value, remove) }, mediaType);
    for (const f of bodyFields(bodySchema, [], 0)) {
      const field = f.path.join('.');
      for (const bad of badScalars(f.schema, false)) {
        // a form carries text only, and only text that has a UTF-8 encoding
        if (form && (typeof bad.value !== 'string' || !bad.value.isWellFormed())) continue;
        add(`body ${field}: ${bad.label}`, field, bad.malformed, withField(f.path, bad.value));
      }
      const name = f.path.filter((k) => !/^\d+$/.test(k)).pop() ?? '';
      if (!form && REFERENCE.test(name) && typeOf(f.schema) === 'integer') {
        // refused, however: a 404 names no field, and a rule about the rest of the body may answer first
        add(`body ${field}: names nothing`, undefined, true, withField(f.path, UNKNOWN_ID));
      }
    }
    for (const key of bodySchema?.required ?? []) {
      add(`body ${key}: missing`, key, true, withField([key], undefined, true));
    }
  }
  if (mediaType === 'multipart/form-data') {
    const t = truncatedMultipart();
    add('multipart: truncated', undefined, true, build(method, path, base, t.type, t.body));
    const textFields = Object.entries(bodySchema?.properties ?? {}).filter(([, f]) => f.format !== 'binary');
    const values = Object.fromEntries(textFields.map(([n, f]) => [n, String(sampleOf(f, n))]));
    for (const [name, value] of Object.entries(given.body ?? {})) values[name] = String(value);
    const required = new Set(bodySchema?.required ?? []);
    const form = (fields: Record<string, string>, filename = 'a.txt') => {
      const m = multipartWith(filename, fields);
      return build(method, path, base, m.type, m.body);
    };
    // the fields of a valid form: those required, and those given
    const requiredValues = Object.fromEntries(
      Object.entries(values).filter(([n]) => required.has(n) || given.body?.[n] !== undefined),
    );
    add('multipart: NUL file name', 'file', true, form(requiredValues, 'a\u0000b.txt'));
    for (const [name, schema] of textFields) {
      // a form field is text: every value that breaks the field's schema, as text
      for (const bad of badScalars(schema, true)) {
        add(
          `multipart ${name}: ${bad.label}`,
          name,
          bad.malformed,
          form({ ...requiredValues, [name]: String(bad.value) }),
        );
      }
      if (required.has(name)) {
        const { [name]: _, ...rest } = requiredValues;
        add(`multipart ${name}: missing`, name, true, form(rest));
      }
    }
    add('multipart: no boundary', undefined, true, build(method, path, base, 'multipart/form-data', 'x'));
  }
  if (method !== 'get' && method !== 'options') {
    add('body: invalid JSON', undefined, true, build(method, path, base, 'application/json', '{"a":'));
    add('body: text/plain', undefined, true, build(method, path, base, 'text/plain', 'hello'));
    add('body: XML', undefined, true, build(method, path, base, 'application/xml', '<a/>'));
    // well-formed JSON of the wrong shape: only where a body is taken (elsewhere it is ignored)
    if (mediaType) {
      add('body: JSON array', undefined, true, build(method, path, base, 'application/json', '[1,2]'));
      const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
      add('body: 20,000 deep', undefined, true, build(method, path, base, 'application/json', deep));
    }
  }
  add('long segment below', undefined, true, build(method, `${path}/${'z'.repeat(300)}`, base, mediaType));
  return cases;
}
