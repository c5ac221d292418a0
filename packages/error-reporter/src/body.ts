import { MAX_MESSAGE, MAX_STACK, MAX_URL, truncate } from './limits';
import type { Breadcrumb, CaptureInput, ReportBody } from './types';

export interface BodyState {
  pageUrl: string;
  breadcrumbs: Breadcrumb[];
  release?: string;
  environment?: string;
  sessionId?: string;
  replayId?: string;
  context?: Record<string, unknown>;
}

/** First "url:line:col" in a V8 or Firefox/Safari stack; used when the event gave no location. */
export function topFrame(stack: string): { sourceUrl: string; line: number; column: number } | undefined {
  const m = /((?:https?|file|blob):\/\/[^\s()]+?):(\d+):(\d+)/.exec(stack);
  return m ? { sourceUrl: m[1], line: Number(m[2]), column: Number(m[3]) } : undefined;
}

/** Assembles the wire body with the server limits applied. Pure: no DOM access. */
export function buildBody(input: CaptureInput, state: BodyState): ReportBody {
  const body: ReportBody = {
    type: input.type,
    message: truncate(input.message || '(no message)', MAX_MESSAGE),
    pageUrl: truncate(state.pageUrl, MAX_URL),
    breadcrumbs: state.breadcrumbs.slice(-30),
    level: input.level ?? (input.type === 'crash' || input.type === 'white_screen' ? 'fatal' : 'error'),
  };
  if (input.stack) body.stack = truncate(input.stack, MAX_STACK);
  let { sourceUrl, line, column } = input;
  if (!sourceUrl && input.stack) {
    const f = topFrame(input.stack);
    if (f) ({ sourceUrl, line, column } = f);
  }
  if (sourceUrl) body.sourceUrl = truncate(sourceUrl, MAX_URL);
  if (line) body.line = line;
  if (column) body.column = column;
  if (input.http) body.http = { ...input.http, url: truncate(input.http.url, MAX_URL) };
  const context = state.context || input.context ? { ...state.context, ...input.context } : undefined;
  if (context && Object.keys(context).length) body.context = context;
  if (state.release) body.release = state.release;
  if (state.environment) body.environment = state.environment;
  if (state.sessionId) body.sessionId = state.sessionId;
  if (state.replayId) body.replayId = state.replayId;
  return body;
}

/** Message and stack of anything thrown or rejected. */
export function describeThrown(value: unknown): { message: string; stack?: string } {
  if (value instanceof Error || (value && typeof value === 'object' && 'message' in value)) {
    const e = value as Error;
    const name = e.name && e.name !== 'Error' ? `${e.name}: ` : '';
    return { message: `${name}${String(e.message)}`, stack: typeof e.stack === 'string' ? e.stack : undefined };
  }
  if (typeof value === 'string') return { message: value };
  try {
    return { message: JSON.stringify(value) ?? String(value) };
  } catch {
    return { message: String(value) };
  }
}
