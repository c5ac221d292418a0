import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { embeddedUrl } from '../packages/server/src/platform/db/embedded-server.ts';
import { PER_REQUEST } from './yardstick-sql.ts';

/**
 * What one request of each scenario costs in SQL in this run, read from the embedded server's own
 * statement log: `log_statement = all` is switched on (ALTER SYSTEM as the superuser, reload) for
 * REQUESTS sequential requests per scenario, then off again, before anything is measured. Marker
 * statements sent by the bench split the log by scenario. A statement seen at least REQUESTS/2
 * times is counted per request; the rest (pg-boss polling, a principal-cache miss) are not.
 */
const REQUESTS = 20;
type Probe = { scenario: keyof typeof PER_REQUEST; url: string; headers?: Record<string, string> };
export type Capture = { scenario: string; statements: string[]; same: boolean };

export async function captureSql(dataDir: string, probes: Probe[]): Promise<Capture[]> {
  const log = join(dataDir, 'pg', 'server.log');
  const from = statSync(log).size;
  const admin = new pg.Client({ connectionString: embeddedUrl(dataDir, 'superuser') });
  await admin.connect();
  try {
    await logStatements(admin, 'all');
    for (const p of probes) {
      await admin.query(`select 'bench-capture:${p.scenario}'`);
      for (let i = 0; i < REQUESTS; i++) {
        const res = await fetch(p.url, { headers: p.headers });
        if (res.status !== 200) throw new Error(`SQL capture: GET ${p.url} answered ${res.status}`);
        await res.arrayBuffer();
      }
    }
    await admin.query(`select 'bench-capture:end'`);
  } finally {
    await logStatements(admin, null);
    await admin.end();
  }
  const entries = statements(readFileSync(log).subarray(from).toString('utf8'));
  return probes.map((p) => {
    const start = entries.indexOf(`select 'bench-capture:${p.scenario}'`);
    // no marker: the log is not where or as expected (log_line_prefix): nothing captured, said as such
    if (start < 0) return { scenario: p.scenario, statements: [], same: false };
    const end = entries.findIndex((e, i) => i > start && e.startsWith("select 'bench-capture:"));
    const counts = new Map<string, number>();
    for (const e of entries.slice(start + 1, end)) counts.set(e, (counts.get(e) ?? 0) + 1);
    const perRequest = [...counts].filter(([, n]) => n >= REQUESTS / 2);
    const statementsSent = perRequest.flatMap(([text, n]) => Array(Math.round(n / REQUESTS)).fill(text) as string[]);
    const expected = PER_REQUEST[p.scenario];
    const same =
      statementsSent.length === expected.length &&
      [...statementsSent].sort().join('\n') === [...expected].sort().join('\n');
    return { scenario: p.scenario, statements: statementsSent, same };
  });
}

/** Sets log_statement for every session of the server (a reload applies it before each one's next statement). */
async function logStatements(admin: pg.Client, value: 'all' | null) {
  await admin.query(value ? `alter system set log_statement = '${value}'` : 'alter system reset log_statement');
  await admin.query('select pg_reload_conf()');
  await new Promise((r) => setTimeout(r, 200));
}

/** The statement texts of a server log, in order: `LOG:  statement: …` and `LOG:  execute <name>: …`, continuation lines included. */
function statements(text: string): string[] {
  const out: string[] = [];
  let current: string | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('\t')) {
      if (current !== null) current += `\n${line.slice(1)}`;
      continue;
    }
    if (current !== null) out.push(current.replace(/\s+/g, ' ').trim());
    const m = line.match(/^\S+ \S+ \S+ \[\d+\] LOG: {2}(?:statement|execute [^:]+): (.*)$/);
    current = m ? (m[1] ?? '') : null;
  }
  if (current !== null) out.push(current.replace(/\s+/g, ' ').trim());
  return out;
}
