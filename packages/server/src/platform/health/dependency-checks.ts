/**
 * The parts the service depends on, checked for `/api/health`, readiness and `/metrics`. Each
 * check is one small round trip, bounded (`timeoutMs`) and remembered for `cacheMs`, and a
 * dependency is never probed twice at once: however often health is asked, each dependency sees
 * at most one probe in flight and one every `cacheMs` (docs/decisions/0040-dependency-faults.md).
 */
export const DEPENDENCIES = ['database', 'jobs', 'cache', 'storage', 'mail'] as const;
export type Dependency = (typeof DEPENDENCIES)[number];

/** `not_configured`: nothing set up (no REDIS_URL, no SMTP); `disabled`: set up and switched off. */
export const DEPENDENCY_STATES = ['up', 'down', 'disabled', 'not_configured'] as const;
export type DependencyState = (typeof DEPENDENCY_STATES)[number];

/**
 * What a probe finds out. It resolves when the dependency answered (`up`, or `disabled` /
 * `not_configured` without calling anything); it throws when the dependency did not.
 */
export type ProbeResult = { state?: 'up' | 'disabled' | 'not_configured'; kind: string };

export type DependencyCheck = {
  /** the service cannot serve while it is down: readiness and `/api/health` answer 503 */
  required: boolean;
  /** what is reported as `kind` when the probe fails without naming it (ProbeFailure) */
  kind: string;
  probe: () => Promise<ProbeResult>;
};

export type DependencyReport = {
  state: DependencyState;
  required: boolean;
  /** what answers: `embedded`/`external`, `redis`/`memory`, `local`/`s3`, `smtp`, `pg-boss` */
  kind: string;
  /** the probe's round trip; null when nothing was called */
  latencyMs: number | null;
  /** why it is down, in words that name no address or credential (the report is public) */
  error?: string;
  /** when the probe ran: a report is up to `cacheMs` old */
  checkedAt: string;
};

export type HealthReport = {
  /** `degraded`: a dependency is down; `ready` false when a required one is */
  status: 'ok' | 'degraded';
  ready: boolean;
  dependencies: Record<Dependency, DependencyReport>;
};

type Slot = {
  report: DependencyReport | null;
  at: number;
  inFlight: Promise<DependencyReport> | null;
  /** the probe itself, which may outlive its report's deadline (a frozen server) */
  probing: Promise<ProbeResult> | null;
};

export type DependencyChecks = ReturnType<typeof createDependencyChecks>;

export function createDependencyChecks(opts: {
  checks: Record<Dependency, DependencyCheck>;
  /** told of every probe that found its dependency down (the failure counter) */
  onDown?: (dependency: Dependency) => void;
  /** told when a dependency's state changes, with what the probe threw (the log) */
  onChange?: (dependency: Dependency, report: DependencyReport, err: unknown) => void;
  timeoutMs?: number;
  cacheMs?: number;
  now?: () => number;
}) {
  const timeoutMs = opts.timeoutMs ?? 1_000;
  const cacheMs = opts.cacheMs ?? 2_000;
  const now = opts.now ?? Date.now;
  const slots = new Map<Dependency, Slot>(
    DEPENDENCIES.map((d) => [d, { report: null, at: 0, inFlight: null, probing: null }]),
  );

  async function run(dependency: Dependency, slot: Slot): Promise<{ report: DependencyReport; failure: unknown }> {
    const { required, probe, kind } = opts.checks[dependency];
    const started = performance.now();
    const checkedAt = new Date(now()).toISOString();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      // a probe still hanging from an earlier check is waited for again, not repeated
      slot.probing ??= probe().finally(() => {
        slot.probing = null;
      });
      const found = await Promise.race([slot.probing, late]);
      const state = found.state ?? 'up';
      const latencyMs = state === 'up' ? Math.round((performance.now() - started) * 100) / 100 : null;
      return { report: { state, required, kind: found.kind, latencyMs, checkedAt }, failure: undefined };
    } catch (err) {
      opts.onDown?.(dependency);
      const report: DependencyReport = {
        state: 'down',
        required,
        kind: err instanceof ProbeFailure ? err.kind : kind,
        latencyMs: null,
        error: describeFailure(err),
        checkedAt,
      };
      return { report, failure: err };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The dependency's report: the remembered one while fresh, else one probe shared by every caller. */
  function check(dependency: Dependency): Promise<DependencyReport> {
    const slot = slots.get(dependency) as Slot;
    if (slot.report && now() - slot.at < cacheMs) return Promise.resolve(slot.report);
    slot.inFlight ??= run(dependency, slot).then(({ report, failure }) => {
      if (slot.report?.state !== report.state && (slot.report || report.state === 'down'))
        opts.onChange?.(dependency, report, failure);
      slot.report = report;
      slot.at = now();
      slot.inFlight = null;
      return report;
    });
    return slot.inFlight;
  }

  return {
    async report(): Promise<HealthReport> {
      const reports = await Promise.all(DEPENDENCIES.map(check));
      const dependencies = Object.fromEntries(
        DEPENDENCIES.map((d, i) => [d, reports[i]]),
      ) as HealthReport['dependencies'];
      const down = reports.filter((r) => r.state === 'down');
      return {
        status: down.length ? 'degraded' : 'ok',
        ready: !down.some((r) => r.required),
        dependencies,
      };
    },
  };
}

/** A failed probe naming what it reached, and why in its own words (else its cause's). */
export class ProbeFailure extends Error {
  readonly kind: string;
  constructor(kind: string, message: string, cause?: unknown) {
    super(message);
    this.kind = kind;
    if (cause !== undefined) this.cause = cause;
  }
}

/** Error codes a probe meets, in words to show: what went wrong, never where. */
const FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EACCES: 'permission denied',
  ENOENT: 'not found',
  EAUTH: 'authentication failed',
  ECONNECTION: 'connection failed',
  ESOCKET: 'connection failed',
  EDNS: 'host not found',
  '57P01': 'server shutting down',
  '57P03': 'server starting up',
  '53300': 'too many connections',
};

function describeFailure(err: unknown): string {
  if (err instanceof ProbeFailure) return err.message || describeFailure(err.cause);
  const chain: { code?: unknown; message?: unknown }[] = [];
  for (
    let e = err as { cause?: unknown } | undefined;
    e && typeof e === 'object' && chain.length < 5;
    e = e.cause as never
  )
    chain.push(e as never);
  for (const e of chain) if (typeof e.code === 'string' && FAILURES[e.code]) return FAILURES[e.code] as string;
  for (const { message } of chain) {
    if (typeof message !== 'string') continue;
    if (/^no answer within \d+ ms$/.test(message)) return message;
    if (/timed? ?out/i.test(message)) return 'timed out';
    if (/terminat|closed/i.test(message)) return 'connection closed';
  }
  return 'unavailable';
}
