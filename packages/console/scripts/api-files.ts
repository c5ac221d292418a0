/**
 * What `npm run api:generate` derives from the snapshot of the document (src/api/openapi.json,
 * written by the server's console-api-snapshot test): the API types and the permission map.
 * test/api-generated.test.ts compares them with the committed files.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { type ApiDocument, apiPermissions } from './api-permissions.ts';
import { apiTypes } from './api-types.ts';

export const API_DIR = join(import.meta.dirname, '..', 'src', 'api');
const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Source as the repository's lint formats it (biome.json at the root), so lint passes on generated files. */
function formatted(text: string, file: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  const args = [biome, 'format', `--stdin-file-path=${relative(ROOT, file)}`];
  return execFileSync(process.execPath, args, { cwd: ROOT, input: text, encoding: 'utf8' });
}

/** File name in src/api → its content, from the snapshot as it is on disk. */
export async function generatedApiFiles(): Promise<Record<string, string>> {
  const doc: unknown = JSON.parse(readFileSync(join(API_DIR, 'openapi.json'), 'utf8'));
  return {
    'schema.d.ts': await apiTypes(doc as OpenAPI3),
    'permissions.ts': formatted(apiPermissions(doc as ApiDocument), join(API_DIR, 'permissions.ts')),
  };
}
