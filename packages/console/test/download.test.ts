import { describe, expect, it } from 'vitest';
import { fileNameOf } from '../src/components/download.ts';

/** The name a download is saved under comes from the server's Content-Disposition (RFC 6266). */
const answer = (disposition?: string) =>
  new Response('x', { headers: disposition ? { 'content-disposition': disposition } : {} });

describe('fileNameOf', () => {
  it("prefers RFC 5987's UTF-8 name, as the service writes non-ASCII names", () => {
    expect(
      fileNameOf(answer(`attachment; filename="__ 2026.pdf"; filename*=UTF-8''%E5%A0%B1%E5%91%8A%202026.pdf`)),
    ).toBe('報告 2026.pdf');
  });

  it('takes the plain name, quoted or not', () => {
    expect(fileNameOf(answer('attachment; filename="operation-logs-7.csv"'))).toBe('operation-logs-7.csv');
    expect(fileNameOf(answer('attachment; filename=report.csv'))).toBe('report.csv');
  });

  it('falls back to the plain name when the encoded one is malformed, and answers null without a header', () => {
    expect(fileNameOf(answer(`attachment; filename="a.csv"; filename*=UTF-8''%E5%ZZ`))).toBe('a.csv');
    expect(fileNameOf(answer())).toBeNull();
  });
});
