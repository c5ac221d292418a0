import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { API_DIR, generatedApiFiles } from '../scripts/api-files.ts';

/**
 * The generated files are what the snapshot gives: a hand edit, or a snapshot written without the
 * rest of `npm run api:generate`, fails here.
 */
it('src/api/schema.d.ts and permissions.ts are generated from src/api/openapi.json as it is', async () => {
  const stale = Object.entries(await generatedApiFiles())
    .filter(([name, text]) => readFileSync(join(API_DIR, name), 'utf8') !== text)
    .map(([name]) => `src/api/${name}`);
  expect(stale, `not generated from the snapshot: run npm run api:generate`).toEqual([]);
});
