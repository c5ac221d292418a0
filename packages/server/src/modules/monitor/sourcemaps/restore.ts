import { originalPositionFor, sourceContentFor, type TraceMap } from '@jridgewell/trace-mapping';
import type { Db } from '../../../platform/db/client.ts';
import { bundleName, parseStack, type StackFrame } from '../ingest/stack.ts';
import type { ErrorEventRow, GeneratedFrame, NotRestoredReason, RestoredFrame } from '../issues/deps.ts';
import { Lru } from './lru.ts';
import { parseStoredMap } from './parse.ts';
import { mapContent, mapsFor } from './repository.ts';

/** Source lines shown either side of the original line. */
const CONTEXT_LINES = 3;
/** Frames restored per event: deep recursions add nothing past this. */
const MAX_FRAMES = 50;
/** Parsed maps kept in memory (each can be tens of MB once decoded). */
const CACHE_SIZE = 4;

type Cached = { map: TraceMap } | { map: null };

const generated = (f: StackFrame): GeneratedFrame => ({
  function: f.fn || null,
  file: f.file,
  line: f.line,
  column: f.column,
});

function context(map: TraceMap, source: string, line: number) {
  const content = sourceContentFor(map, source);
  if (content == null) return null;
  const all = content.split(/\r?\n/);
  const start = Math.max(1, line - CONTEXT_LINES);
  const end = Math.min(all.length, line + CONTEXT_LINES);
  return { startLine: start, lines: all.slice(start - 1, end) };
}

type Mapped = { frame: RestoredFrame; callName: string | null };

function restoreFrame(map: TraceMap, f: StackFrame & { line: number; column: number }): Mapped {
  // Stack columns are 1-based; trace-mapping columns are 0-based.
  const pos = originalPositionFor(map, { line: f.line, column: Math.max(0, f.column - 1) });
  if (pos.source === null || pos.line === null)
    return { frame: { restored: false, reason: 'no_position', frame: generated(f) }, callName: null };
  return {
    frame: {
      restored: true,
      function: f.fn || null,
      file: pos.source,
      line: pos.line,
      column: pos.column + 1,
      context: context(map, pos.source, pos.line),
      generated: generated(f),
    },
    // A caller's position is its call expression: the name mapped there is the callee's original name.
    callName: pos.name,
  };
}

/** Names each restored frame after the original name its caller's call site maps to, when there is one. */
function nameFromCallers(mapped: Mapped[]): RestoredFrame[] {
  return mapped.map((m, i) => {
    const callName = mapped[i + 1]?.callName;
    return m.frame.restored && callName ? { ...m.frame, function: callName } : m.frame;
  });
}

/**
 * The restorer passed to the issue views: the latest event's frames mapped back through the maps
 * uploaded for its tenant, release and bundle file names (spec §4.6 rule 5). Null when the event
 * has no parseable stack.
 */
export function createRestorer(db: Db) {
  const cache = new Lru<string, Cached>(CACHE_SIZE);

  async function load(id: number, sha256: string): Promise<TraceMap | null> {
    const key = `${id}:${sha256}`;
    const hit = cache.get(key);
    if (hit) return hit.map;
    const bytes = await mapContent(db, id);
    let map: TraceMap | null = null;
    try {
      map = bytes ? parseStoredMap(bytes) : null;
    } catch {
      map = null;
    }
    cache.set(key, { map });
    return map;
  }

  return async function restore(event: ErrorEventRow): Promise<RestoredFrame[] | null> {
    const frames = parseStack(event.stack).slice(0, MAX_FRAMES);
    if (!frames.length) return null;
    if (!event.release) return frames.map((f) => ({ restored: false, reason: 'no_release', frame: generated(f) }));

    const names = [...new Set(frames.map((f) => bundleName(f.file)).filter(Boolean))];
    const maps = await mapsFor(db, { tenantId: event.tenantId }, event.release, names);
    const byName = new Map(maps.map((m) => [m.fileName, m]));

    const out: Mapped[] = [];
    const skip = (reason: NotRestoredReason, f: StackFrame) =>
      out.push({ frame: { restored: false, reason, frame: generated(f) }, callName: null });
    for (const f of frames) {
      const meta = byName.get(bundleName(f.file));
      if (!meta) skip('no_map', f);
      else if (f.line === null || f.column === null) skip('no_position', f);
      else {
        const map = await load(meta.id, meta.sha256);
        if (map) out.push(restoreFrame(map, { ...f, line: f.line, column: f.column }));
        else skip('map_unreadable', f);
      }
    }
    return nameFromCallers(out);
  };
}

export type Restorer = ReturnType<typeof createRestorer>;
