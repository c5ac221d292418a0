import { httpErrors } from '../../../platform/http/errors.ts';
import { sourceMapErrors } from './errors.ts';
import { parseMap } from './parse.ts';

/**
 * The map must be JSON and a version 3 source map (plain, or an index map with `sections`),
 * and trace-mapping must accept it, so a map that is stored can be used for restoration.
 */
export function checkSourceMap(bytes: Buffer): void {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw sourceMapErrors.invalid('not valid JSON');
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw sourceMapErrors.invalid('not a JSON object');
  const map = json as Record<string, unknown>;
  if (map.version !== 3) throw sourceMapErrors.invalid('"version" must be 3');
  if (!Array.isArray(map.sections)) {
    if (typeof map.mappings !== 'string') throw sourceMapErrors.invalid('"mappings" must be a string');
    if (!Array.isArray(map.sources)) throw sourceMapErrors.invalid('"sources" must be an array');
  }
  try {
    parseMap(map);
  } catch (err) {
    throw sourceMapErrors.invalid(err instanceof Error ? err.message : 'unreadable');
  }
}

// the longest release a report may carry (ingest schema), so a longer one could never match
const RELEASE_MAX = 128;
const NAME_MAX = 255;

/** The text fields of an upload; every problem is named (missing ones together). */
export function checkUploadFields(fields: { release?: string; fileName?: string; file: boolean }) {
  const details: { field: string; message: string }[] = [];
  const release = fields.release?.trim() ?? '';
  const fileName = fields.fileName?.trim() ?? '';
  if (!release) details.push({ field: 'release', message: 'is required' });
  else if (release.length > RELEASE_MAX)
    details.push({ field: 'release', message: `at most ${RELEASE_MAX} characters` });
  if (!fileName) details.push({ field: 'fileName', message: 'is required' });
  else if (fileName.length > NAME_MAX) details.push({ field: 'fileName', message: `at most ${NAME_MAX} characters` });
  else if (/[/\\?#]/.test(fileName))
    details.push({ field: 'fileName', message: 'the bundle file name only (e.g. app.min.js), without path or query' });
  if (!fields.file) details.push({ field: 'file', message: 'is required' });
  if (details.length) throw httpErrors.validation(details);
  return { release, fileName };
}
