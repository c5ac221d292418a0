import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirInUseError extends Error {}

/**
 * One service per DATA_DIR: its embedded database must never have two owners. The lock is a pid
 * file made atomically (a hard link fails when the name exists); a file whose process is gone
 * (a crash, `kill -9`) is stale and taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const file = join(dataDir, 'atrium.pid');
  const mine = `${process.pid}\n${new Date().toISOString()}\n`;
  const temp = `${file}.${process.pid}`;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(temp, mine);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(temp, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      }
      const [pid, since] = readFileSync(file, 'utf8').split('\n');
      if (isOtherLiveService(Number(pid))) {
        throw new DataDirInUseError(
          `DATA_DIR ${dataDir} is in use by another Atrium process (pid ${pid}, started ${since}): stop it first, or use another DATA_DIR`,
        );
      }
      unlinkSync(file); // stale: its process is gone
    }
  } finally {
    unlinkSync(temp);
  }
  return {
    release() {
      try {
        if (readFileSync(file, 'utf8') === mine) unlinkSync(file);
      } catch {
        // already gone
      }
    },
  };
}

function isOtherLiveService(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A recycled pid (a container restarted) belongs to some other program: only a Node process counts.
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('node');
  } catch {
    return true; // no /proc (macOS, Windows): a live pid is taken at its word
  }
}
