import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The embedded PostgreSQL's memory: proportional set size (PSS) summed over the postmaster (its pid
 * is the first line of DATA_DIR/pg/postmaster.pid) and every process below it. PSS, not RSS: the
 * server's processes share the postmaster's pages (shared buffers, the binary) and RSS would count
 * them once per process.
 */
export type PgMemory = { pssMiB: number; processes: number };

export function postgresMemory(dataDir: string): PgMemory | null {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = ppid(Number(name));
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  let kB = 0;
  let processes = 0;
  for (const queue = [postmaster]; queue.length > 0; ) {
    const pid = queue.pop() as number;
    const pss = pssKb(pid);
    if (pss === null) continue;
    kB += pss;
    processes++;
    queue.push(...(children.get(pid) ?? []));
  }
  return processes ? { pssMiB: kB / 1024, processes } : null;
}

/** The parent pid from /proc/<pid>/stat (the field after the command name, which may hold spaces and parentheses). */
function ppid(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null; // exited meanwhile
  }
}

function pssKb(pid: number): number | null {
  try {
    const m = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+) kB/m);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
