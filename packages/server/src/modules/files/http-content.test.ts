import { describe, expect, it } from 'vitest';
import { contentDisposition, etagMatches, parseRange } from './http-content.ts';

describe('parseRange (RFC 9110 §14)', () => {
  it('reads a-b, a- and -n, clipping the end to the file', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ kind: 'range', range: { start: 0, end: 9 } });
    expect(parseRange('bytes=90-', 100)).toEqual({ kind: 'range', range: { start: 90, end: 99 } });
    expect(parseRange('bytes=-10', 100)).toEqual({ kind: 'range', range: { start: 90, end: 99 } });
    expect(parseRange('bytes=-500', 100)).toEqual({ kind: 'range', range: { start: 0, end: 99 } });
    expect(parseRange('bytes=50-5000', 100)).toEqual({ kind: 'range', range: { start: 50, end: 99 } });
  });

  it('is unsatisfiable past the end, for -0 and for an empty file', () => {
    expect(parseRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=100-200', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  });

  it('ignores several ranges, other units and malformed values (whole file)', () => {
    for (const h of [undefined, '', 'bytes=0-1,5-6', 'items=0-1', 'bytes=9-1', 'bytes=-', 'bytes=a-b']) {
      expect(parseRange(h, 100)).toEqual({ kind: 'none' });
    }
  });
});

describe('etagMatches', () => {
  it('matches *, a list, and weak tags', () => {
    expect(etagMatches('*', '"x"')).toBe(true);
    expect(etagMatches('"a", W/"x"', '"x"')).toBe(true);
    expect(etagMatches('"a"', '"x"')).toBe(false);
    expect(etagMatches(undefined, '"x"')).toBe(false);
  });
});

describe('contentDisposition (RFC 6266, RFC 5987)', () => {
  it('gives an ASCII fallback and the UTF-8 name percent-encoded', () => {
    expect(contentDisposition('報告 2026.pdf', false)).toBe(
      `attachment; filename="__ 2026.pdf"; filename*=UTF-8''%E5%A0%B1%E5%91%8A%202026.pdf`,
    );
    expect(contentDisposition(`it's "a" (b)*.png`, true)).toBe(
      `inline; filename="it's _a_ (b)*.png"; filename*=UTF-8''it%27s%20%22a%22%20%28b%29%2A.png`,
    );
  });
});
