import type { errorEvents } from '../tables.ts';

export type ErrorEventRow = typeof errorEvents.$inferSelect;

/** A frame as reported (minified): function name (null if anonymous), script URL, line, column (1-based). */
export type GeneratedFrame = { function: string | null; file: string; line: number | null; column: number | null };

/** Why a frame could not be mapped back to its original source. */
export type NotRestoredReason =
  /** the event carries no release, so no map can be chosen (spec §4.6 rule 5) */
  | 'no_release'
  /** no map uploaded for this release and bundle file name (or the frame has no position) */
  | 'no_map'
  /** the map has no mapping at this line and column */
  | 'no_position'
  /** the stored map could not be parsed */
  | 'map_unreadable';

/**
 * One frame of the latest event's stack, top first, mapped back to the original source through
 * the source map of its release and bundle file name, or the reason it was not.
 */
export type RestoredFrame =
  | {
      restored: true;
      /** original name from the map, else the reported (minified) one */
      function: string | null;
      /** original source path as the map names it */
      file: string;
      line: number;
      /** 1-based, like the reported stack */
      column: number;
      /** up to 3 source lines either side of `line`, when the map embeds the source */
      context: { startLine: number; lines: string[] } | null;
      generated: GeneratedFrame;
    }
  | { restored: false; reason: NotRestoredReason; frame: GeneratedFrame };

/** What the issue views need from other parts of the service (passed in from app.ts). */
export type IssuesDeps = {
  /** users of one tenant among `ids` (identity module); an assignee must be one of them */
  userContacts(tenantId: number | null, ids: number[]): Promise<{ id: number; active: boolean }[]>;
  /**
   * Source-map seam (spec §4.6 detail "restored stack when a source map exists"): the source-map
   * area will pass its restorer here. Without one, the detail answers `restoredStack: null`.
   */
  restore?: (event: ErrorEventRow) => Promise<RestoredFrame[] | null>;
};
