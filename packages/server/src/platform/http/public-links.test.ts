import { describe, expect, it } from 'vitest';
import { createPublicLinks } from './public-links.ts';

describe('createPublicLinks', () => {
  it('puts service paths under the base URL, keeping its path and dropping a trailing slash', () => {
    expect(createPublicLinks('https://atrium.example').to('/api/tasks/7/result')).toBe(
      'https://atrium.example/api/tasks/7/result',
    );
    const office = createPublicLinks('https://atrium.example/office/');
    expect(office.base).toBe('https://atrium.example/office');
    expect(office.to('/api/drive/public/s/abc')).toBe('https://atrium.example/office/api/drive/public/s/abc');
  });

  it('resolves console deep links under the base URL, its path kept', () => {
    const office = createPublicLinks('https://atrium.example/office');
    expect(office.resolve('/drive?space=1&node=2')).toBe('https://atrium.example/office/drive?space=1&node=2');
    expect(office.resolve('wiki/docs/7')).toBe('https://atrium.example/office/wiki/docs/7');
    expect(createPublicLinks('http://127.0.0.1:3000').resolve('/monitor/tasks?id=3')).toBe(
      'http://127.0.0.1:3000/monitor/tasks?id=3',
    );
  });

  it('keeps absolute http(s) links; refuses other schemes and non-links', () => {
    const links = createPublicLinks('https://atrium.example');
    expect(links.resolve('https://elsewhere.example/x?y=1')).toBe('https://elsewhere.example/x?y=1');
    expect(links.resolve('javascript:alert(1)')).toBeNull();
    expect(links.resolve('mailto:a@b.example')).toBeNull();
    expect(links.resolve('http://[bad')).toBeNull();
    expect(links.resolve('')).toBeNull();
    expect(links.resolve(null)).toBeNull();
  });
});
