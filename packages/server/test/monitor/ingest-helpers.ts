import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/app.ts';

let nextIp = 1;
/** A client address of its own: the report route limits per IP, so each test counts alone. */
export function freshIp(): string {
  const n = nextIp++;
  return `10.77.${(n >> 8) & 255}.${n & 255}`;
}

export type ReportOpts = { ip?: string; token?: string; headers?: Record<string, string> };

export function report(t: TestApp, body: unknown, opts: ReportOpts = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return t.app.inject({
    method: 'POST',
    url: '/api/frontend-errors',
    headers,
    remoteAddress: opts.ip ?? freshIp(),
    payload: body as object,
  });
}

export const CHROME_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

export function jsError(message: string, topFn = 'handleClick', extra: Record<string, unknown> = {}) {
  return {
    type: 'js_error',
    message,
    stack: `TypeError: ${message}\n    at ${topFn} (https://shop.example.com/assets/index-4f2a.js:1:2345)\n    at https://shop.example.com/assets/index-4f2a.js:2:10`,
    pageUrl: 'https://shop.example.com/orders',
    ...extra,
  };
}
