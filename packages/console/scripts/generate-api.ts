/**
 * Writes the console's API types and permission map from the snapshot of the document (the
 * second step of the root `npm run api:generate`, after the server wrote the snapshot).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_DIR, generatedApiFiles } from './api-files.ts';

for (const [name, text] of Object.entries(await generatedApiFiles())) {
  writeFileSync(join(API_DIR, name), text);
  console.log(`console: src/api/${name} written`);
}
