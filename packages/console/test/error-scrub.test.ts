import type { ReportBody } from '@atrium/error-reporter';
import { describe, expect, it } from 'vitest';
import { scrubReport, scrubText, scrubUrl } from '../src/app/error-reporting/scrub';

/** What the console's error reports may not carry (docs/decisions/0037). */
const BASE = 'https://office.example.com';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

describe('scrubbing the console’s error reports', () => {
  it('drops queries and fragments, and a share link’s token from its path', () => {
    expect(scrubUrl(`${BASE}/login?next=%2Foauth2%2Fauthorize%3Fstate%3Dabc#x`)).toBe(`${BASE}/login`);
    expect(scrubUrl(`${BASE}/oauth2/authorize?client_id=c&state=s&code_challenge=x`)).toBe(`${BASE}/oauth2/authorize`);
    expect(scrubUrl(`${BASE}/s/AbC-123_xyz?preview=1`)).toBe(`${BASE}/s/:token`);
    expect(scrubUrl(`${BASE}/api/drive/public/shares/AbC-123_xyz/nodes/7/content`)).toBe(
      `${BASE}/api/drive/public/shares/:token/nodes/7/content`,
    );
    expect(scrubUrl(`${BASE}/system/users`)).toBe(`${BASE}/system/users`);
    // a path that merely contains "s" is left alone
    expect(scrubUrl(`${BASE}/settings/sessions`)).toBe(`${BASE}/settings/sessions`);
  });

  it('scrubs URLs inside text, and anything shaped like a bearer token', () => {
    expect(scrubText(`failed at ${BASE}/s/secretTok?x=1 while loading`)).toBe(
      `failed at ${BASE}/s/:token while loading`,
    );
    expect(scrubText('pushState /oauth2/authorize?state=abc&code=def')).toBe('pushState /oauth2/authorize');
    expect(scrubText(`Authorization: Bearer ${JWT}`)).toBe('Authorization: Bearer [token]');
    expect(scrubText(`token ${JWT} leaked`)).toBe('token [token] leaked');
    expect(scrubText('Why? Because.')).toBe('Why? Because.');
    expect(scrubText(`at render (${BASE}/assets/users-D-e7Nfjr.js:1:234)`)).toBe(
      `at render (${BASE}/assets/users-D-e7Nfjr.js:1:234)`,
    );
  });

  it('scrubs every field of a report: page, source, http, breadcrumbs and context', () => {
    const report: ReportBody = {
      type: 'http_error',
      message: `GET ${BASE}/api/drive/public/shares/tok1/nodes failed with 500`,
      stack: `Error: x\n    at f (${BASE}/s/tok2?y=1:1:2)`,
      pageUrl: `${BASE}/s/tok3#frag`,
      sourceUrl: `${BASE}/assets/a.js?v=1`,
      breadcrumbs: [
        {
          type: 'navigation',
          message: `pushState ${BASE}/s/tok4?q`,
          data: { from: `${BASE}/login?next=/x`, to: `${BASE}/s/tok4` },
          timestamp: 1,
        },
        { type: 'click', message: 'form > input[name="password"]', timestamp: 2 },
      ],
      context: { requestId: 'req-1', nested: { url: `${BASE}/s/tok5` } },
      http: { method: 'GET', url: `${BASE}/api/drive/public/shares/tok1/nodes`, status: 500 },
      release: 'console@0.1.0+abc',
    };
    const out = scrubReport(report);
    expect(JSON.stringify(out)).not.toMatch(/tok\d|next=|frag|\?v=1|\?y=1/);
    expect(out).toMatchObject({
      pageUrl: `${BASE}/s/:token`,
      sourceUrl: `${BASE}/assets/a.js`,
      http: { url: `${BASE}/api/drive/public/shares/:token/nodes`, status: 500 },
      context: { requestId: 'req-1', nested: { url: `${BASE}/s/:token` } },
      release: 'console@0.1.0+abc',
    });
    expect(out?.breadcrumbs[0]?.data).toEqual({ from: `${BASE}/login`, to: `${BASE}/s/:token` });
    expect(out?.breadcrumbs[1]?.message).toBe('form > input[name="password"]');
  });

  it('sends nothing for a request that never got an answer (the person’s own connection)', () => {
    const offline: ReportBody = {
      type: 'http_error',
      message: `GET ${BASE}/api/auth/me network error`,
      pageUrl: `${BASE}/`,
      breadcrumbs: [],
      http: { method: 'GET', url: `${BASE}/api/auth/me`, status: 0 },
    };
    expect(scrubReport(offline)).toBeNull();
  });
});
