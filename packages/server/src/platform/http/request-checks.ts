import type { FastifyRequest } from 'fastify';
import { type FieldError, httpErrors } from './errors.ts';

/** Body media types a route may declare it consumes (route `consumes`). */
export type MediaType =
  | 'application/json'
  | 'application/x-www-form-urlencoded'
  | 'multipart/form-data'
  | 'application/octet-stream'
  /** a string body (payment channels' notifications); see body-parsers.ts */
  | 'application/xml'
  | 'text/xml';

/** `Application/JSON; charset=utf-8` → `application/json`. */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * A body in a media type the route does not declare is refused with 415 before validation, so a
 * JSON body never reaches a form endpoint (RFC 6749 §3.2) and the document's `requestBody` is the
 * whole truth. A request without a body is left to the schema (a required body is then missing).
 */
export function checkMediaType(req: FastifyRequest, consumes: readonly MediaType[]): void {
  const type = req.headers['content-type'];
  if (type === undefined) return;
  if (!consumes.includes(mediaTypeOf(type) as MediaType)) throw httpErrors.unsupportedMediaType(consumes);
}

const MESSAGE = 'must be valid Unicode text without NUL characters';
const MAX_REPORTED = 20;

/**
 * Refuses text no column can hold, wherever it is in the request: PostgreSQL stores no NUL in
 * `text` or `jsonb`, and a lone UTF-16 surrogate has no UTF-8 encoding. Checked once for every
 * route (path, a declared query, parsed body at any depth, object keys too), so no input reaches the
 * database with either; each bad field is named as validation errors name it.
 * Iterative: a body may be thousands of levels deep.
 */
export function checkText(req: FastifyRequest): void {
  const bad: FieldError[] = [];
  // Containers only, each linked to its parent instead of copying the path (a deep body costs
  // O(size)); strings are checked where they are met, so the common case allocates little.
  type At = { value: object; key: string | number | null; parent: At | null; context: string };
  const stack: At[] = [];
  const report = (at: At, key: string | number | null) => {
    const path: (string | number)[] = key === null ? [] : [key];
    for (let a: At | null = at; a !== null && a.key !== null; a = a.parent) path.push(a.key);
    bad.push({ field: path.length ? path.reverse().join('.') : at.context, message: MESSAGE });
  };
  const visit = (value: unknown, key: string | number | null, parent: At) => {
    if (typeof value === 'string') {
      if (!validText(value)) report(parent, key);
    } else if (value !== null && typeof value === 'object' && !isStream(value)) {
      stack.push({ value, key, parent, context: parent.context });
    }
  };
  for (const [context, value] of [
    ['params', req.params],
    // a query string the route declares no schema for is never read: nothing of it reaches a column
    ['querystring', req.routeOptions?.schema?.querystring ? req.query : undefined],
    ['body', req.body],
  ] as const) {
    const root: At = { value: {}, key: null, parent: null, context };
    if (typeof value === 'string') {
      if (!validText(value)) report(root, null);
    } else visit(value, null, root);
  }
  while (stack.length && bad.length < MAX_REPORTED) {
    const at = stack.pop() as At;
    const value = at.value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) visit(value[i], i, at);
    } else {
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        if (!validText(key)) report(at, key.replace(/\0/g, '\\0').toWellFormed());
        else visit((value as Record<string, unknown>)[key], key, at);
      }
    }
  }
  if (bad.length) throw httpErrors.validation(bad);
}

export function validText(s: string): boolean {
  return !s.includes('\0') && s.isWellFormed();
}

/** For text a route reads itself (multipart fields and file names): the same rule, one field. */
export function assertText(field: string, value: string): void {
  if (!validText(value)) throw httpErrors.invalidField(field, MESSAGE);
}

function isStream(v: object): boolean {
  return typeof (v as { pipe?: unknown }).pipe === 'function' || Buffer.isBuffer(v);
}
