import type { Config } from './config.ts';
import type { DatabaseState } from './platform/db/client.ts';
import { DataDirInUseError, lockDataDir } from './platform/db/data-dir-lock.ts';
import { embeddedUrl, startEmbeddedPostgres } from './platform/db/embedded-server.ts';
import { superviseEmbedded } from './platform/db/embedded-supervisor.ts';

export type ServiceDatabase = {
  url: string;
  /** where the data is, for people: the embedded server's folder, or DATABASE_URL */
  where: string;
  kind: 'embedded' | 'external';
  /** the supervised embedded server's state (openDatabase's `server`); absent otherwise */
  server?: { state(): DatabaseState };
  /** stops the embedded server this process started and frees DATA_DIR; nothing otherwise */
  release(): Promise<void>;
};

/**
 * The PostgreSQL server the service works on: DATABASE_URL, else its own embedded server under
 * DATA_DIR, which has one owner at a time (the DATA_DIR lock). A command-line tool may `share` the
 * embedded server of a service already running on that DATA_DIR instead of refusing.
 */
export async function openServiceDatabase(
  config: Config,
  opts: {
    log: (line: string) => void;
    share?: boolean;
    /**
     * The service: the embedded server it starts is started again when it dies
     * (embedded-supervisor.ts); told the reason when that cannot be done. A command's short-lived
     * server is not supervised.
     */
    onServerLost?: (reason: string) => void;
  },
): Promise<ServiceDatabase> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, where: 'DATABASE_URL', kind: 'external', release: async () => {} };
  }
  const where = `embedded PostgreSQL in ${config.dataDir}/pg`;
  let lock: ReturnType<typeof lockDataDir>;
  try {
    lock = lockDataDir(config.dataDir);
  } catch (err) {
    if (!(opts.share && err instanceof DataDirInUseError)) throw err;
    return { url: embeddedUrl(config.dataDir), where, kind: 'embedded', release: async () => {} };
  }
  try {
    const server = await startEmbeddedPostgres(config.dataDir, { log: opts.log });
    const lost = opts.onServerLost;
    const supervisor =
      lost &&
      superviseEmbedded(server, {
        log: opts.log,
        onGiveUp: (reason) => {
          lock.release();
          lost(reason);
        },
      });
    return {
      url: server.url,
      where,
      kind: 'embedded',
      ...(supervisor ? { server: supervisor } : {}),
      release: async () => {
        await (supervisor ?? server).stop();
        lock.release();
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}
