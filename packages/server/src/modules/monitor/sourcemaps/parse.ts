import { FlattenMap, type SourceMapInput, TraceMap } from '@jridgewell/trace-mapping';

/** A parsed map; index maps (`sections`) are flattened so every lookup works the same way. */
export function parseMap(json: object): TraceMap {
  return 'sections' in json
    ? FlattenMap(json as Parameters<typeof FlattenMap>[0])
    : new TraceMap(json as SourceMapInput);
}

/** A stored map's bytes, parsed (throws when they are not a readable map). */
export function parseStoredMap(bytes: Buffer): TraceMap {
  return parseMap(JSON.parse(bytes.toString('utf8')));
}
