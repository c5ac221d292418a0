import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import en from '../src/i18n/en/common.json';

/** zh-CN and en hold the same keys in the same namespaces, and no value is empty. */
const I18N = join(import.meta.dirname, '..', 'src', 'i18n');
const load = (lang: string, file: string) => JSON.parse(readFileSync(join(I18N, lang, file), 'utf8'));

function keys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

function leaves(value: unknown): unknown[] {
  if (typeof value !== 'object' || value === null) return [value];
  return Object.values(value).flatMap(leaves);
}

describe('translations', () => {
  const files = readdirSync(join(I18N, 'zh-CN')).sort();

  it('both languages have the same namespaces', () => {
    expect(readdirSync(join(I18N, 'en')).sort()).toEqual(files);
    expect(files).toContain('common.json');
    expect(en.appName).toBe('Atrium');
  });

  it.each(files)('%s: the same keys in zh-CN and en, none empty', (file) => {
    const zh = load('zh-CN', file);
    const english = load('en', file);
    expect(keys(english).sort()).toEqual(keys(zh).sort());
    for (const v of [...leaves(zh), ...leaves(english)]) expect(typeof v === 'string' && v.trim() !== '').toBe(true);
  });

  it('every namespace file is registered in src/i18n/index.ts', () => {
    const index = readFileSync(join(I18N, 'index.ts'), 'utf8');
    for (const file of files) expect(index).toContain(`./zh-CN/${file}`);
  });
});
