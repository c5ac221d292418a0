import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { logDestination } from './destination.ts';
import { createPrettyFormatter } from './pretty.ts';

/** Lines pino really writes, rendered as a person at a terminal reads them. */
function render(log: (logger: pino.Logger) => void): string {
  const format = createPrettyFormatter({ color: false });
  let out = '';
  const write = (line: string) => {
    out += format(line);
  };
  log(pino({ level: 'info' }, { write }));
  return out;
}

describe('readable log lines', () => {
  it('a request is one line when it completes: method, URL, status and time', () => {
    const out = render((log) => {
      const req = log.child({ reqId: 'r-1' });
      req.info({ req: { method: 'POST', url: '/api/auth/login' } }, 'incoming request');
      req.info({ res: { statusCode: 401 }, responseTime: 12.4 }, 'request completed');
    });
    expect(out).toMatch(/^\d\d:\d\d:\d\d INFO {2}POST \/api\/auth\/login 401 12 ms\n$/);
  });

  it('other fields follow as key=value, the request id included; an error brings its stack', () => {
    const out = render((log) => {
      log.child({ reqId: 'r-2' }).warn({ error: 'auth.unauthenticated', status: 401 }, 'request rejected');
      log.error({ err: new Error('boom') }, 'job failed');
    });
    const [rejected, failed, stackTop] = out.split('\n');
    expect(rejected).toMatch(/WARN {2}request rejected error=auth\.unauthenticated status=401 reqId=r-2$/);
    expect(failed).toMatch(/ERROR job failed$/);
    expect(stackTop).toBe('    Error: boom');
  });

  it('a line that is not JSON passes through; colours only when asked', () => {
    const format = createPrettyFormatter({ color: true });
    expect(format('plain text')).toBe('plain text\n');
    expect(format(JSON.stringify({ level: 40, time: 0, msg: 'careful' }))).toContain('\u001b[33mWARN ');
  });
});

describe('logDestination', () => {
  const terminal = (isTTY: boolean) => {
    const written: string[] = [];
    return { out: { isTTY, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream, written };
  };

  it("auto: JSON (pino's own output) when standard output is no terminal, readable lines on one", () => {
    expect(logDestination('auto', terminal(false).out)).toBeUndefined();
    const tty = terminal(true);
    logDestination('auto', tty.out)?.write(JSON.stringify({ level: 30, time: 0, msg: 'hello' }));
    expect(tty.written.join('')).toMatch(/INFO .*hello/);
  });

  it('json and pretty are taken as said', () => {
    expect(logDestination('json', terminal(true).out)).toBeUndefined();
    const pipe = terminal(false);
    logDestination('pretty', pipe.out)?.write(JSON.stringify({ level: 30, time: 0, msg: 'hello' }));
    expect(pipe.written.join('')).toMatch(/^\d\d:\d\d:\d\d INFO {2}hello\n$/); // no colour codes into a pipe
  });
});
