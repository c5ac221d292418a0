/**
 * Log lines for a person at a terminal (LOG_FORMAT=pretty, the default on a TTY): pino's JSON
 * rendered as one short line, a request as one line when it completes. Operators' collectors keep
 * getting JSON, the default everywhere else.
 */
const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '90' },
  30: { name: 'INFO ', color: '32' },
  40: { name: 'WARN ', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};
// Shown in the line's own shape, not as key=value.
const SHAPED = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime', 'err']);
const MAX_VALUE = 200;
const MAX_PENDING = 1000;

type Entry = {
  level?: number;
  time?: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { type?: string; message?: string; stack?: string };
  [key: string]: unknown;
};

export function createPrettyFormatter(opts: { color: boolean }) {
  const paint = (code: string, text: string) => (opts.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  // Fastify logs a request twice; the first line only tells where the second one's request went.
  const pending = new Map<string, { method?: string; url?: string }>();

  /** One JSON line in, the text to print out ('' for nothing). */
  return function format(line: string): string {
    let e: Entry;
    try {
      e = JSON.parse(line) as Entry;
    } catch {
      return line.endsWith('\n') ? line : `${line}\n`;
    }
    const level = LEVELS[e.level ?? 30] ?? { name: String(e.level), color: '0' };
    const time = new Date(e.time ?? Date.now()).toTimeString().slice(0, 8);
    if (e.msg === 'incoming request' && e.reqId && e.req) {
      if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value as string);
      pending.set(e.reqId, e.req);
      return '';
    }
    let text = e.msg ?? '';
    if (e.msg === 'request completed' && e.reqId) {
      const req = pending.get(e.reqId) ?? {};
      pending.delete(e.reqId);
      const status = e.res?.statusCode ?? 0;
      const statusText = paint(status >= 500 ? '31' : status >= 400 ? '33' : '32', String(status));
      text = `${req.method ?? '?'} ${req.url ?? '?'} ${statusText} ${Math.round(e.responseTime ?? 0)} ms`;
    }
    const fields = Object.entries(e)
      .filter(([k]) => !SHAPED.has(k))
      .map(([k, v]) => `${k}=${clip(typeof v === 'string' ? v : JSON.stringify(v))}`);
    if (e.reqId && e.msg !== 'request completed') fields.push(`reqId=${e.reqId}`);
    let out = `${paint('90', time)} ${paint(level.color, level.name)} ${text}${fields.length ? ` ${paint('90', fields.join(' '))}` : ''}\n`;
    if (e.err) {
      const stack = e.err.stack ?? `${e.err.type ?? 'Error'}: ${e.err.message ?? ''}`;
      out += `${stack
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}\n`;
    }
    return out;
  };
}

function clip(value: string): string {
  return value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE)}…` : value;
}
