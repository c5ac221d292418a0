/**
 * Builds the smallest value a JSON schema accepts: required properties only, each at its
 * minimum. Used to send *valid* requests to every route, so a test reaches the handler's
 * tenant check instead of stopping at validation.
 */
/** What these helpers read of a JSON schema (OpenAPI 3.1 schemas are JSON schemas). */
export type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  $ref?: string;
  pattern?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  default?: unknown;
};

export function sampleOf(schema: Schema | undefined, name = ''): unknown {
  if (!schema) return undefined;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const alt = schema.anyOf ?? schema.oneOf;
  if (alt) return sampleOf(alt.find((s) => s.type !== 'null') ?? alt[0], name);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s) => sampleOf(s, name) as object));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = sampleOf(schema.properties?.[key], key);
      return out;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, (_, i) => sampleOf(schema.items, `${name}${i}`));
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return true;
    case 'string':
      return sampleString(schema, name);
    default:
      return schema.default ?? null;
  }
}

function sampleString(s: Schema, name: string): string {
  switch (s.format) {
    case 'email':
      return 'someone@example.com';
    case 'date-time':
      return new Date(Date.now() + 86_400_000).toISOString();
    case 'uri':
      return 'https://example.com/x';
  }
  if (s.pattern) {
    // a fixed-length character class (a hex digest: `^[A-Fa-f0-9]{64}$`) takes that many of its first character
    const fixed = /^\^\[([^\]])[^\]]*\]\{(\d+)\}\$$/.exec(s.pattern);
    if (fixed) return (fixed[1] as string).repeat(Number(fixed[2]));
    const pattern = new RegExp(s.pattern, 'u');
    return PATTERN_SAMPLES.find((v) => pattern.test(v) && fits(s, v)) ?? 'sample-1';
  }
  if (/password/i.test(name)) return 'Sample#Pass2026';
  const base = `s${name}`.replace(/[^a-z0-9]/gi, '').toLowerCase() || 'sample';
  const min = s.minLength ?? 1;
  const str = base.length >= min ? base : base.padEnd(min, 'x');
  return s.maxLength ? str.slice(0, s.maxLength) : str;
}

/** Values that match the patterns the schemas use (a phone number, a time of day, a code), tried in order. */
const PATTERN_SAMPLES = [
  'sample-1',
  '+8613800000000',
  '12:30',
  'a:b',
  'CNY',
  'PUB_KEY_ID_1',
  'https://example.com/x',
  'https://example.com',
  'sample1sample12',
];

const fits = (s: Schema, v: string) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity);
