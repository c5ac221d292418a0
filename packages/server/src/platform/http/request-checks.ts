import type { FastifyRequest } from 'fastify';
import { type FieldError, httpErrors } from './errors.ts';

/** Body media types a route may declare it consumes (route `consumes`). */
export type MediaType =
  | 'application/json'
  | 'application/x-www-form-urlencoded'
  | 'multipart/form-data'
  | 'application/octet-stream';

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
 * route (path, query, parsed body at any depth, object keys too), so no input reaches the
 * database with either; each bad field is named as validation errors name it.
 * Iterative: a body may be thousands of levels deep.
 */
export function checkText(req: FastifyRequest): void {
  const bad: FieldError[] = [];
  // Each entry links to its parent instead of copying the path: a deep body costs O(size).
  type At = { value: unknown; key: string | null; parent: At | null; context: string };
  const stack: At[] = [
    { value: req.params, key: null, parent: null, context: 'params' },
    { value: req.query, key: null, parent: null, context: 'querystring' },
    { value: req.body, key: null, parent: null, context: 'body' },
  ];
  const report = (at: At, key?: string) => {
    const path = key === undefined ? [] : [key];
    for (let a: At | null = at; a?.key != null; a = a.parent) path.push(a.key);
    path.reverse();
    bad.push({ field: path.length ? path.join('.') : at.context, message: MESSAGE });
  };
  while (stack.length && bad.length < MAX_REPORTED) {
    const at = stack.pop() as At;
    const { value, context } = at;
    if (typeof value === 'string') {
      if (!validText(value)) report(at);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: String(i), parent: at, context });
    } else if (value !== null && typeof value === 'object' && !isStream(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (!validText(key)) report(at, key.replace(/\0/g, '\\0').toWellFormed());
        else stack.push({ value: item, key, parent: at, context });
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
