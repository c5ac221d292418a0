import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.ts';

const root = mkdtempSync(join(tmpdir(), 'atrium-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('lockDataDir', () => {
  it('creates a DATA_DIR that does not exist yet, and release removes only its own lock', () => {
    const dir = join(root, 'new', 'data');
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, 'atrium.pid'), 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();
    expect(existsSync(join(dir, 'atrium.pid'))).toBe(false);
  });

  it('refuses a DATA_DIR held by another live Node process, naming it', async () => {
    const dir = join(root, 'held');
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      lockDataDir(dir).release();
      writeFileSync(join(dir, 'atrium.pid'), `${other.pid}\n2026-01-01T00:00:00.000Z\n`);
      expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
      expect(() => lockDataDir(dir)).toThrow(`pid ${other.pid}, started 2026-01-01T00:00:00.000Z`);
      expect(readFileSync(join(dir, 'atrium.pid'), 'utf8')).toContain(String(other.pid));
    } finally {
      other.kill();
    }
  });

  it('takes over a lock whose process is gone (a crash)', async () => {
    const dir = join(root, 'stale');
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.once('exit', r));
    lockDataDir(dir).release();
    writeFileSync(join(dir, 'atrium.pid'), `${gone.pid}\n2026-01-01T00:00:00.000Z\n`);
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, 'atrium.pid'), 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();
  });
});
