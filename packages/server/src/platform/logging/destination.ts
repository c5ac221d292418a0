import type { DestinationStream } from 'pino';
import { createPrettyFormatter } from './pretty.ts';

export type LogFormat = 'json' | 'pretty' | 'auto';

/**
 * Where the service's log lines go: JSON on standard output (pino's default, for collectors), or
 * readable lines when asked or when standard output is a terminal (`auto`).
 */
export function logDestination(
  format: LogFormat,
  out: NodeJS.WriteStream = process.stdout,
): DestinationStream | undefined {
  const pretty = format === 'pretty' || (format === 'auto' && out.isTTY === true);
  if (!pretty) return undefined;
  const render = createPrettyFormatter({ color: out.isTTY === true });
  return {
    write(line: string) {
      const text = render(line);
      if (text) out.write(text);
    },
  };
}
