import { describeThrown } from '../body';
import type { BreadcrumbRing } from '../breadcrumbs';
import type { CaptureInput } from '../types';

type Report = (input: CaptureInput) => void;

function format(args: unknown[]): { message: string; stack?: string } {
  const err = args.find((a) => a instanceof Error) as Error | undefined;
  const message = args.map((a) => (typeof a === 'string' ? a : describeThrown(a).message)).join(' ');
  return { message, stack: err?.stack };
}

/** console.error → console_error report + breadcrumb; console.warn → breadcrumb only. */
export function instrumentConsole(ring: BreadcrumbRing, report: Report): () => void {
  const c = console;
  const origError = c.error;
  const origWarn = c.warn;
  c.error = (...args: unknown[]) => {
    origError.apply(c, args);
    const { message, stack } = format(args);
    // Report first so the crumb for this very call is not in its own trail twice.
    report({ type: 'console_error', message, stack });
    ring.add('console', message, { level: 'error' });
  };
  c.warn = (...args: unknown[]) => {
    origWarn.apply(c, args);
    ring.add('console', format(args).message, { level: 'warn' });
  };
  return () => {
    c.error = origError;
    c.warn = origWarn;
  };
}
