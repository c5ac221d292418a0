import { describe, expect, it } from 'vitest';
import { buildBody, describeThrown, topFrame } from '../src/body';
import { BreadcrumbRing } from '../src/breadcrumbs';
import { isExpectedRejection } from '../src/capture/errors';
import { samplePoints } from '../src/capture/white-screen';
import { createDeduper } from '../src/dedupe';

describe('dedupe', () => {
  it('drops the same type + message within 10 s and accepts it again afterwards', () => {
    let now = 1_000_000;
    const d = createDeduper(undefined, () => now);
    expect(d.accept('js_error', 'boom')).toBe(true);
    now += 9_999;
    expect(d.accept('js_error', 'boom')).toBe(false);
    expect(d.accept('console_error', 'boom')).toBe(true);
    expect(d.accept('js_error', 'boom 2')).toBe(true);
    now += 1;
    expect(d.accept('js_error', 'boom')).toBe(true);
  });

  it('does not let a long stream of distinct messages grow without bound or forget recent ones', () => {
    let now = 0;
    const d = createDeduper(10_000, () => now);
    for (let i = 0; i < 500; i++) {
      now += 100;
      expect(d.accept('js_error', `m${i}`)).toBe(true);
    }
    expect(d.accept('js_error', 'm499')).toBe(false);
  });
});

describe('breadcrumb ring', () => {
  it('keeps the latest 30, oldest first', () => {
    const ring = new BreadcrumbRing();
    for (let i = 0; i < 75; i++) ring.add('click', `c${i}`, undefined, i);
    const list = ring.list();
    expect(list).toHaveLength(30);
    expect(list[0].message).toBe('c45');
    expect(list[29].message).toBe('c74');
    expect(list.map((b) => b.timestamp)).toEqual([...Array(30)].map((_, i) => 45 + i));
  });

  it('returns a copy in insertion order before it is full, and clears', () => {
    const ring = new BreadcrumbRing();
    ring.add('navigation', 'a', { to: '/a' }, 1);
    ring.add('network', 'b', undefined, 2);
    const list = ring.list();
    expect(list).toEqual([
      { type: 'navigation', message: 'a', data: { to: '/a' }, timestamp: 1 },
      { type: 'network', message: 'b', timestamp: 2 },
    ]);
    list.pop();
    expect(ring.list()).toHaveLength(2);
    ring.clear();
    expect(ring.list()).toEqual([]);
  });
});

describe('report body', () => {
  const state = { pageUrl: 'https://app.test/orders', breadcrumbs: [] };

  it('truncates message 2000, stack 16000, URLs 512', () => {
    const long = (n: number) => 'x'.repeat(n);
    const body = buildBody(
      {
        type: 'http_error',
        message: long(5000),
        stack: long(20000),
        sourceUrl: `https://cdn.test/${long(1000)}`,
        http: { method: 'GET', url: `https://api.test/${long(1000)}`, status: 502 },
      },
      { ...state, pageUrl: `https://app.test/${long(1000)}` },
    );
    expect(body.message).toHaveLength(2000);
    expect(body.stack).toHaveLength(16000);
    expect(body.sourceUrl).toHaveLength(512);
    expect(body.pageUrl).toHaveLength(512);
    expect(body.http?.url).toHaveLength(512);
    expect(body.http?.status).toBe(502);
  });

  it('carries exactly the server field names and omits unset optional ones', () => {
    const crumbs = [{ type: 'click' as const, message: 'button#save', timestamp: 5 }];
    const body = buildBody(
      { type: 'js_error', message: 'boom', sourceUrl: 'https://app.test/a.js', line: 3, column: 7 },
      {
        ...state,
        breadcrumbs: crumbs,
        release: '1.2.3',
        environment: 'production',
        sessionId: 's1',
        replayId: 'r1',
        context: { requestId: 'req-1' },
      },
    );
    expect(body).toEqual({
      type: 'js_error',
      message: 'boom',
      pageUrl: 'https://app.test/orders',
      sourceUrl: 'https://app.test/a.js',
      line: 3,
      column: 7,
      breadcrumbs: crumbs,
      level: 'error',
      release: '1.2.3',
      environment: 'production',
      sessionId: 's1',
      replayId: 'r1',
      context: { requestId: 'req-1' },
    });
    const bare = buildBody({ type: 'crash', message: '' }, state);
    expect(Object.keys(bare).sort()).toEqual(['breadcrumbs', 'level', 'message', 'pageUrl', 'type']);
    expect(bare.level).toBe('fatal');
    expect(bare.message).toBe('(no message)');
  });

  it('takes sourceUrl, line and column from the top stack frame when the event gave none', () => {
    const stack =
      'TypeError: x is undefined\n    at load (https://app.test/assets/index-abc.js:12:34)\n    at https://app.test/b.js:1:2';
    expect(topFrame(stack)).toEqual({ sourceUrl: 'https://app.test/assets/index-abc.js', line: 12, column: 34 });
    expect(topFrame('load@https://app.test/x.js:5:6\n')).toEqual({
      sourceUrl: 'https://app.test/x.js',
      line: 5,
      column: 6,
    });
    const body = buildBody({ type: 'promise_rejection', message: 'x', stack }, state);
    expect(body).toMatchObject({ sourceUrl: 'https://app.test/assets/index-abc.js', line: 12, column: 34 });
    expect(topFrame('no frames here')).toBeUndefined();
  });

  it('merges global and per-report context', () => {
    const body = buildBody({ type: 'crash', message: 'm', context: { step: 2 } }, { ...state, context: { a: 1 } });
    expect(body.context).toEqual({ a: 1, step: 2 });
  });
});

describe('thrown values', () => {
  it('describes errors, strings and objects', () => {
    const e = new TypeError('bad');
    expect(describeThrown(e)).toEqual({ message: 'TypeError: bad', stack: e.stack });
    expect(describeThrown(new Error('plain')).message).toBe('plain');
    expect(describeThrown('just text')).toEqual({ message: 'just text' });
    expect(describeThrown({ code: 7 })).toEqual({ message: '{"code":7}' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeThrown(cyclic).message).toBe('[object Object]');
  });

  it('treats business API errors and the submit-aborted marker as expected rejections', () => {
    expect(isExpectedRejection('SUBMIT_ABORTED')).toBe(true);
    expect(isExpectedRejection({ code: 'SUBMIT_ABORTED' })).toBe(true);
    expect(isExpectedRejection({ isBusinessError: true, message: 'quota' })).toBe(true);
    const be = new Error('insufficient balance');
    be.name = 'BusinessError';
    expect(isExpectedRejection(be)).toBe(true);
    expect(isExpectedRejection(new Error('real'))).toBe(false);
    expect(isExpectedRejection({ isBusinessError: 'yes' })).toBe(false);
    expect(isExpectedRejection(undefined)).toBe(false);
    expect(isExpectedRejection('OTHER')).toBe(false);
  });
});

describe('white screen sample points', () => {
  it('samples 17 distinct points on the two centre lines inside the viewport', () => {
    const pts = samplePoints(1000, 800);
    expect(pts).toHaveLength(17);
    expect(new Set(pts.map((p) => p.join(','))).size).toBe(17);
    for (const [x, y] of pts) {
      expect(x > 0 && x < 1000 && y > 0 && y < 800).toBe(true);
      expect(x === 500 || y === 400).toBe(true);
    }
  });
});
