import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The service's Node flags, as `npm start` runs it (packages/server/package.json `start`): the bench
 * measures the newcomer's service, so it starts it with the same heap settings.
 */
export function serviceArgs(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'packages/server/package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const flags = pkg.scripts.start.split(/\s+/).filter((a) => a.startsWith('--'));
  return [...flags, join(ROOT, 'packages/server/src/main.ts')];
}
