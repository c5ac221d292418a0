import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import type { LightMyRequestResponse } from 'fastify';
import { errorSourceMaps } from '../../src/modules/monitor/sourcemaps/tables.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import { multipartBody, type Part } from '../files/files-helpers.ts';
import type { TestApp } from '../helpers/app.ts';

export const MAPS_URL = '/api/frontend-errors/source-maps';

/** POST a source map as multipart (fields in the given order; omit one by passing undefined). */
export function uploadMap(
  t: TestApp,
  token: string,
  f: { release?: string; fileName?: string; data?: Buffer },
): Promise<LightMyRequestResponse> {
  const parts: Part[] = [];
  if (f.release !== undefined) parts.push({ field: 'release', value: f.release });
  if (f.fileName !== undefined) parts.push({ field: 'fileName', value: f.fileName });
  if (f.data !== undefined)
    parts.push({ field: 'file', filename: 'x.map', contentType: 'application/json', data: f.data });
  const { payload, headers } = multipartBody(parts);
  return t.app.inject({
    method: 'POST',
    url: MAPS_URL,
    payload,
    headers: { ...headers, authorization: `Bearer ${token}` },
  });
}

/** Two source files, minified by esbuild into one bundle with a map; `boom()` throws on line 3 of util.ts. */
export const APP_SOURCES: Record<string, string> = {
  'util.ts': [
    'export function explode(what: string): never {',
    "  const message = 'boom: ' + what;",
    '  throw new TypeError(message);',
    '}',
    '',
  ].join('\n'),
  'main.ts': [
    "import { explode } from './util';",
    '',
    'export function boom(): void {',
    "  explode('checkout');",
    '}',
    '(window as unknown as { boom: typeof boom }).boom = boom;',
    '',
  ].join('\n'),
};

/** The bundle and its map (esbuild, minified; the map names `src/util.ts` and `src/main.ts`). */
export async function buildApp(dir: string, outName = 'app.min.js'): Promise<{ js: string; map: Buffer }> {
  const { writeFile, mkdir } = await import('node:fs/promises');
  await mkdir(`${dir}/src`, { recursive: true });
  for (const [name, text] of Object.entries(APP_SOURCES)) await writeFile(`${dir}/src/${name}`, text);
  const result = await build({
    entryPoints: [`${dir}/src/main.ts`],
    bundle: true,
    minify: true,
    sourcemap: 'external',
    format: 'iife',
    outfile: `${dir}/${outName}`,
    write: false,
    logLevel: 'silent',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'));
  if (!map) throw new Error('esbuild wrote no map');
  return { js, map: Buffer.from(map.contents) };
}

/** A map row written straight into the table (for fixtures that only need one to exist). */
export async function sourceMapRow(t: TestApp, tenantId: number | null, release = 'b@1.0.0'): Promise<number> {
  const content = Buffer.from('{"version":3,"sources":[],"names":[],"mappings":""}');
  const [row] = await t.database.db
    .insert(errorSourceMaps)
    .values({
      tenantId: platformKey(tenantId),
      release,
      fileName: 'app.min.js',
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      content,
    })
    .returning({ id: errorSourceMaps.id });
  if (!row) throw new Error('no row');
  return row.id;
}
