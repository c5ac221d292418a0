import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real S3-compatible server for tests: the npm `s3rver` on 127.0.0.1, a free port, and a
 * temporary directory. It knows the access key ids (a wrong one fails) but does not verify
 * SigV4 signatures, so a wrong secret alone goes unnoticed.
 */
type S3rverInstance = {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  httpServer?: Server;
};
type S3rverCtor = new (opts: Record<string, unknown>) => S3rverInstance;
type Account = { createKeyPair(id: string, secret: string): void };

const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as S3rverCtor;
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account') as { DUMMY_ACCOUNT: Account };

export const S3_ACCESS_KEY_ID = 'AKIAATRIUMTEST';
export const S3_SECRET = 'atrium-s3-secret-Zq8vX2kP';
DUMMY_ACCOUNT.createKeyPair(S3_ACCESS_KEY_ID, S3_SECRET);

export type TestS3 = {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  directory: string;
  port: number;
  /** stops the server and keeps its objects: `startS3rver(bucket, { port, directory })` serves them again */
  halt(): Promise<void>;
  stop(): Promise<void>;
};

export async function startS3rver(
  bucket = 'atrium-test',
  again?: { port: number; directory: string },
): Promise<TestS3> {
  const directory = again?.directory ?? (await mkdtemp(join(tmpdir(), 'atrium-s3rver-')));
  const server = new S3rver({
    address: '127.0.0.1',
    port: again?.port ?? 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  let running = true;
  const halt = async () => {
    if (!running) return;
    running = false;
    server.httpServer?.closeAllConnections();
    await server.close();
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: 'us-east-1',
    accessKeyId: S3_ACCESS_KEY_ID,
    secretAccessKey: S3_SECRET,
    directory,
    port,
    halt,
    async stop() {
      await halt();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
