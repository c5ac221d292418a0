/**
 * Stack trace parsing (spec §2.5 fingerprint; source-map restoration reuses it). Pure: no I/O.
 * Two formats cover the browsers we support:
 * - V8 (Chrome, Edge, Node): `    at fn (https://x/app.js:1:2)`, `    at https://x/app.js:1:2`,
 *   `    at async fn (…)`, `    at new Foo (…)`
 * - SpiderMonkey / JavaScriptCore (Firefox, Safari): `fn@https://x/app.js:1:2`, `@https://x/app.js:1:2`
 */
export type StackFrame = {
  /** function name as reported (minified); '' for anonymous frames */
  fn: string;
  /** script URL or path as reported */
  file: string;
  line: number | null;
  column: number | null;
};

const V8_FRAME = /^\s*at (?:(.+?) \()?(.+?)(?::(\d+))?(?::(\d+))?\)?\s*$/;
const GECKO_FRAME = /^\s*([^@]*)@(.+?)(?::(\d+))?(?::(\d+))?\s*$/;

function num(s: string | undefined): number | null {
  return s === undefined ? null : Number(s);
}

export function parseFrame(lineText: string): StackFrame | null {
  if (/^\s*at /.test(lineText)) {
    const m = V8_FRAME.exec(lineText);
    if (!m?.[2]) return null;
    let fn = (m[1] ?? '').replace(/^async /, '');
    let file = m[2];
    // `at eval (eval at fn (url:1:2), <anonymous>:1:1)`: the script is the outer location
    const evalAt = /\(([^()]+?):(\d+):(\d+)\)/.exec(lineText);
    if (file.includes('eval at') && evalAt?.[1])
      return { fn, file: evalAt[1], line: num(evalAt[2]), column: num(evalAt[3]) };
    if (!m[1] && file.startsWith('async ')) file = file.slice(6);
    if (fn === '<anonymous>') fn = '';
    return { fn, file, line: num(m[3]), column: num(m[4]) };
  }
  const m = GECKO_FRAME.exec(lineText);
  if (!m?.[2]) return null;
  return { fn: m[1] ?? '', file: m[2], line: num(m[3]), column: num(m[4]) };
}

/** Frames in order, top first; lines that are not frames (the message line) are skipped. */
export function parseStack(stack: string): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const lineText of stack.split('\n')) {
    const frame = parseFrame(lineText);
    if (frame) frames.push(frame);
  }
  return frames;
}

/** Frames that point into no script (`[native code]`, `<anonymous>`) say nothing about where the error is. */
function isScriptFrame(f: StackFrame): boolean {
  return f.file !== '[native code]' && f.file !== '<anonymous>' && f.file !== 'native';
}

/** The topmost frame that points into a script, or null. */
export function topFrame(stack: string): StackFrame | null {
  return parseStack(stack).find(isScriptFrame) ?? null;
}

/** `fn (file:line:col)`, the form stored as an issue's top frame. */
export function formatFrame(f: StackFrame): string {
  const at = [f.file, f.line, f.column].filter((p) => p !== null).join(':');
  return f.fn ? `${f.fn} (${at})` : at;
}

/** A script URL without query string or fragment (cache busters must not split an issue). */
export function scriptFile(url: string): string {
  return url.replace(/[?#].*$/, '');
}

/** The bundle name a source map is uploaded under: the last path segment of the script URL. */
export function bundleName(url: string): string {
  const path = scriptFile(url);
  return path.slice(path.lastIndexOf('/') + 1);
}
