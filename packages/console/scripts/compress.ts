/**
 * Pre-compresses the built files (brotli and gzip beside each one), so the service sends the
 * smallest encoding a browser accepts without compressing on every request.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const DIST = join(import.meta.dirname, '..', 'dist');
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|map)$/;
const MIN_BYTES = 512;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    // .vite/ (manifest, release, source maps) is never served: nothing to compress
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

let count = 0;
for (const file of files(DIST)) {
  if (!COMPRESSIBLE.test(file)) continue;
  const body = readFileSync(file);
  if (body.length < MIN_BYTES) continue;
  writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  count++;
}
console.log(`console: ${count} files pre-compressed (brotli, gzip) in ${DIST}`);
