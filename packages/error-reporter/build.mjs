// Builds dist/error-reporter.esm.js, the IIFE dist/error-reporter.min.js (global AtriumErrorReporter) and
// .d.ts files, then fails when the IIFE is 5 KiB or more minified + gzipped (issue 6 budget).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const dir = dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const LIMIT = 5120;

export async function buildReporter({ quiet = false } = {}) {
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  const common = {
    entryPoints: [join(dir, 'src/index.ts')],
    bundle: true,
    minify: true,
    sourcemap: true,
    target: ['es2019'],
    define: { __RELEASE__: JSON.stringify(process.env.ATRIUM_RELEASE || pkg.version) },
    legalComments: 'none',
    logLevel: 'warning',
  };
  await build({ ...common, format: 'esm', outfile: join(dir, 'dist/error-reporter.esm.js') });
  await build({
    ...common,
    format: 'iife',
    globalName: 'AtriumErrorReporter',
    outfile: join(dir, 'dist/error-reporter.min.js'),
  });

  const require = createRequire(import.meta.url);
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], { stdio: 'inherit' });

  const code = readFileSync(join(dir, 'dist/error-reporter.min.js'));
  const gzipped = gzipSync(code, { level: 9 }).length;
  if (!quiet) console.log(`error-reporter.min.js: ${code.length} B minified, ${gzipped} B gzipped (limit ${LIMIT} B)`);
  if (gzipped >= LIMIT) throw new Error(`error-reporter.min.js is ${gzipped} B gzipped, over the ${LIMIT} B budget`);
  return { minified: code.length, gzipped };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildReporter().catch((err) => {
    console.error(err.message ?? err);
    process.exit(1);
  });
}
