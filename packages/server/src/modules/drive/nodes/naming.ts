import type { Db } from '../../../platform/db/client.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { siblingNamesLike } from './node-repository.ts';

/**
 * Node names and the keep-both rule (spec §4.3 rule 1): a same-named sibling makes the new one
 * `name (1).ext`, `name (2).ext`, … (the first free number, any case), as desktop clients do.
 */
const MAX_NAME = 255;

/** Refuses names no file system of a client could hold; answers the name trimmed. */
export function checkNodeName(raw: string, field = 'name'): string {
  const name = raw.normalize('NFC').trim();
  if (name.length === 0) throw httpErrors.invalidField(field, 'must not be empty');
  if (name.length > MAX_NAME) throw httpErrors.invalidField(field, `must be at most ${MAX_NAME} characters`);
  if (name === '.' || name === '..') throw httpErrors.invalidField(field, 'must not be . or ..');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[/\\\u0000-\u001f\u007f]/.test(name))
    throw httpErrors.invalidField(field, 'must not contain / \\ or control characters');
  return name;
}

/** `report.final.pdf` → ['report.final', '.pdf']; a folder or a dotfile keeps its whole name as stem. */
export function splitName(name: string, isFolder: boolean): [string, string] {
  const dot = name.lastIndexOf('.');
  if (isFolder || dot <= 0) return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}

/** The first free `stem (n)ext` among the live siblings (the name itself when it is free). */
export async function freeName(tx: Db, spaceId: number, parentId: number | null, name: string, isFolder: boolean) {
  const taken = await siblingNamesLike(tx, spaceId, parentId, splitName(name, isFolder)[0]);
  if (!taken.has(name.toLowerCase())) return name;
  const [stem, ext] = splitName(name, isFolder);
  for (let n = 1; ; n++) {
    const candidate = `${stem} (${n})${ext}`;
    if (!taken.has(candidate.toLowerCase()))
      return candidate.length <= MAX_NAME ? candidate : `${stem.slice(0, MAX_NAME - ext.length - 12)} (${n})${ext}`;
  }
}
