import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import { checkText } from './request-checks.ts';

function fieldsOf(req: { params?: unknown; query?: unknown; body?: unknown }, declaresQuery = true): string[] {
  try {
    const routeOptions = { schema: declaresQuery ? { querystring: {} } : {} };
    checkText({ params: {}, query: {}, routeOptions, ...req } as unknown as FastifyRequest);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return ((err as AppError).details ?? []).map((d) => d.field);
  }
}

describe('checkText', () => {
  it('passes ordinary text, emoji (surrogate pairs) and non-text values', () => {
    expect(fieldsOf({ body: { name: 'Zoë 😀 中文', n: 1, ok: true, none: null, list: ['a', 2] } })).toEqual([]);
  });

  it('names every field with a NUL or a lone surrogate, at any depth, in each part', () => {
    expect(
      fieldsOf({
        params: { id: 'a\u0000' },
        query: { keyword: 'x\udc00' },
        body: { a: { b: [{ c: 'ok' }, { c: '\ud800' }] }, d: 'fine', e: ['\u0000'] },
      }).sort(),
    ).toEqual(['a.b.1.c', 'e.0', 'id', 'keyword']);
  });

  it('leaves alone a query string the route declares nothing of: it is never read', () => {
    expect(fieldsOf({ query: { x: 'a\u0000' } }, false)).toEqual([]);
    expect(fieldsOf({ query: { x: 'a\u0000' } })).toEqual(['x']);
  });

  it('checks object keys, and names a bad key without repeating the NUL', () => {
    expect(fieldsOf({ body: { meta: { 'k\u0000y': 1 } } })).toEqual(['meta.k\\0y']);
  });

  it('a body that is itself a string is named body', () => {
    expect(fieldsOf({ body: 'a\u0000b' })).toEqual(['body']);
  });

  // a walk that copies the path per level takes minutes here (past the test timeout)
  it('walks a 20,000-deep body and names the innermost field', () => {
    let body: unknown = 'bad\u0000';
    for (let i = 0; i < 20_000; i++) body = [body];
    expect(fieldsOf({ body })).toEqual([Array(20_000).fill('0').join('.')]);
  });
});
