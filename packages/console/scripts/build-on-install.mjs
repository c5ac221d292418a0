/**
 * The root `prepare` script: `npm ci` builds the console, so `npm ci && npm start` serves it
 * (docs/decisions/0031-console-serving.md). JavaScript, not TypeScript: an install without dev
 * dependencies runs it on the machine's own Node, which may be 20 (no type stripping). Vite is
 * missing there too; the install then finishes and the service's / says how to build the console.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const BUILD = ['run', 'build', '-w', '@atrium/console'];

try {
  createRequire(new URL('../package.json', import.meta.url)).resolve('vite/package.json');
} catch {
  console.log(
    `console: not built (Vite is not installed: dev dependencies omitted); to build it: npm ${BUILD.join(' ')}`,
  );
  process.exit(0);
}

// npm names itself to the scripts it runs; the build then runs on the same Node and npm
const npm = process.env.npm_execpath;
if (!npm) {
  console.error(`run through npm (npm run prepare), or build with: npm ${BUILD.join(' ')}`);
  process.exit(1);
}
const started = Date.now();
// Vite's list of every chunk is noise in an install: one line when it works, all of it when not
const build = spawnSync(process.execPath, [npm, ...BUILD], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
if (build.status === 0) {
  console.log(`console: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} else {
  process.stdout.write(build.stdout ?? '');
  process.stderr.write(build.stderr ?? '');
  console.error(
    `console: the build failed (${build.status ?? build.signal}); run it again with: npm ${BUILD.join(' ')}`,
  );
}
process.exit(build.status ?? 1);
