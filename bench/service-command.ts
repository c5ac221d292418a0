import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The service's Node flags, as `npm start` runs it (the root package.json `start`): the bench
 * measures the newcomer's service, so it starts it with the same heap settings.
 */
export function serviceArgs(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const flags = pkg.scripts.start.split(/\s+/).filter((a) => a.startsWith('--'));
  return [...flags, join(ROOT, 'packages/server/src/main.ts')];
}

/** Stops a child the bench started: SIGTERM (the service then stops its PostgreSQL), SIGKILL after 15 s. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
