import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The built console as Vite's manifest describes it: which files a page needs, and their weight. */
export const DIST = join(import.meta.dirname, '..', 'dist');
type Chunk = { file: string; imports?: string[]; dynamicImports?: string[]; css?: string[]; isEntry?: boolean };

export function manifest(): Record<string, Chunk> {
  const file = join(DIST, '.vite', 'manifest.json');
  if (!existsSync(file))
    throw new Error(`${file} is missing: build the console first (npm run build -w @atrium/console)`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** A chunk and everything it imports statically: what the browser loads for it. */
export function closure(m: Record<string, Chunk>, keys: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const k of m[key]?.imports ?? []) visit(k);
  };
  for (const k of keys) visit(k);
  return seen;
}

const gzipped = (file: string) => gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length;

/** Gzip bytes of the JavaScript and CSS of these chunks. */
export function weight(m: Record<string, Chunk>, keys: Iterable<string>): { js: number; css: number } {
  let js = 0;
  let css = 0;
  const cssFiles = new Set<string>();
  for (const k of keys) {
    js += gzipped(m[k].file);
    for (const c of m[k].css ?? []) cssFiles.add(c);
  }
  for (const c of cssFiles) css += gzipped(c);
  return { js, css };
}
