/**
 * The console build's release, as its error reports carry it and as its source maps are uploaded
 * under (docs/decisions/0037): `console@<version>+<12 hex>`, the hash of everything the build reads
 * — the console's and the reporter's sources, the build configuration and the locked dependency
 * versions — so two builds of the same tree share a release and any change makes a new one.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const INPUTS = [
  'src',
  'public',
  'index.html',
  'package.json',
  'vite.config.ts',
  'scripts/release.ts',
  '../error-reporter/src',
  '../error-reporter/package.json',
  '../../package-lock.json',
];

function* files(path: string): Generator<string> {
  if (!existsSync(path)) return;
  if (!statSync(path).isDirectory()) {
    yield path;
    return;
  }
  for (const name of readdirSync(path).sort()) yield* files(join(path, name));
}

export function consoleRelease(): string {
  const hash = createHash('sha256');
  for (const input of INPUTS)
    for (const file of files(join(ROOT, input))) {
      // the path too, so a renamed file changes the release; `/` whatever the platform
      hash.update(relative(ROOT, file).split('\\').join('/'));
      hash.update('\0');
      hash.update(readFileSync(file));
      hash.update('\0');
    }
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return `console@${version}+${hash.digest('hex').slice(0, 12)}`;
}

/** Where a build writes its release: beside Vite's manifest, under a dot folder the service never serves. */
export const RELEASE_FILE = join(ROOT, 'dist', '.vite', 'release.txt');
