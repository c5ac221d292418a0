import { describe, expect, it } from 'vitest';
import { normalizeMessage } from './fingerprint.ts';
import { bundleName, formatFrame, parseStack, topFrame } from './stack.ts';
import { parseUserAgent } from './user-agent.ts';

describe('parseStack', () => {
  it('reads V8 (Chrome, Edge) frames, named, anonymous, async and eval', () => {
    const stack = [
      "TypeError: Cannot read properties of undefined (reading 'x')",
      '    at handleClick (https://shop.example.com/assets/index-4f2a.js:1:2345)',
      '    at https://shop.example.com/assets/index-4f2a.js:2:10',
      '    at async loadOrders (https://shop.example.com/assets/orders.js?v=3:14:7)',
      '    at eval (eval at run (https://shop.example.com/a.js:5:6), <anonymous>:1:1)',
    ].join('\n');
    expect(parseStack(stack)).toEqual([
      { fn: 'handleClick', file: 'https://shop.example.com/assets/index-4f2a.js', line: 1, column: 2345 },
      { fn: '', file: 'https://shop.example.com/assets/index-4f2a.js', line: 2, column: 10 },
      { fn: 'loadOrders', file: 'https://shop.example.com/assets/orders.js?v=3', line: 14, column: 7 },
      { fn: 'eval', file: 'https://shop.example.com/a.js', line: 5, column: 6 },
    ]);
  });

  it('reads Firefox and Safari frames', () => {
    const stack = [
      'handleClick@https://shop.example.com/assets/index.js:1:2345',
      'loadOrders/<@https://shop.example.com/assets/orders.js:14:7',
      '@https://shop.example.com/assets/index.js:3:1',
      'global code@https://shop.example.com/boot.js:9:12',
    ].join('\n');
    const frames = parseStack(stack);
    expect(frames.map((f) => f.fn)).toEqual(['handleClick', 'loadOrders/<', '', 'global code']);
    expect(frames[3]).toEqual({ fn: 'global code', file: 'https://shop.example.com/boot.js', line: 9, column: 12 });
  });

  it('top frame skips native frames and formats as fn (file:line:col)', () => {
    const stack = 'forEach@[native code]\nrender@https://x.example/app.js:10:20';
    const top = topFrame(stack);
    expect(top && formatFrame(top)).toBe('render (https://x.example/app.js:10:20)');
    expect(topFrame('Error: only a message')).toBeNull();
    expect(bundleName('https://x.example/assets/index-4f2a.js?v=1#x')).toBe('index-4f2a.js');
  });
});

describe('normalizeMessage', () => {
  it('erases UUIDs, hex addresses and digits, UUIDs and hex first', () => {
    expect(normalizeMessage('Order 123 of 7d0f6a1c-2b3e-4c5d-8e9f-0a1b2c3d4e5f at 0xDEADbeef failed')).toBe(
      normalizeMessage('Order 9 of 00000000-aaaa-bbbb-cccc-dddddddddddd at 0x1 failed'),
    );
    expect(normalizeMessage('id 0xff')).toBe('id');
    expect(normalizeMessage('a1b2')).toBe('ab');
  });
});

describe('parseUserAgent', () => {
  const cases: [string, string, string][] = [
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
      'Edge 120',
      'Windows',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36',
      'Chrome 121',
      'macOS',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:122.0) Gecko/20100101 Firefox/122.0', 'Firefox 122', 'Linux'],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
      'Safari 17',
      'iOS',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
      'Chrome 120',
      'Android',
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/119.0.0.0 Safari/537.36',
      'HeadlessChrome 119',
      'Linux',
    ],
  ];
  it.each(cases)('%s', (ua, browser, os) => {
    expect(parseUserAgent(ua)).toEqual({ browser, os });
  });
  it('answers empty for no header and Other for unknown clients', () => {
    expect(parseUserAgent('')).toEqual({ browser: '', os: '' });
    expect(parseUserAgent('curl/8.5.0')).toEqual({ browser: 'Other', os: 'Other' });
  });
});
