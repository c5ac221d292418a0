/**
 * A worker process that takes one outbox job and then hangs until it is killed (SIGKILL): a
 * crash with the job left `active`. Run by test/platform/outbox.test.ts:
 *   node jobs-crash.child.ts <databaseUrl>
 * Prints `TAKEN <jobId> <attempt>` once the handler holds the job.
 */
import pino from 'pino';
import { openDatabase } from '../../src/platform/db/client.ts';
import { createJobs } from '../../src/platform/jobs/jobs.ts';
import { crashJob } from './jobs-crash.shared.ts';

const [url] = process.argv.slice(2);
const database = await openDatabase({ url: url as string, kind: 'external', poolMax: 2 });
const jobs = createJobs({
  database,
  config: {
    databasePoolMax: 2,
    jobsPollSeconds: 1,
    jobsCronCheckSeconds: 30,
    jobsSweepSeconds: 1,
  },
  log: pino({ level: 'silent' }),
});
const { crash } = jobs.register({ crash: crashJob }, () => ({
  async handle(_payload, job) {
    process.stdout.write(`TAKEN ${job.id} ${job.attempt}\n`);
    await new Promise(() => {}); // never completes: the process is killed while holding the job
  },
}));
await jobs.start();
await database.db.transaction((tx) => crash.send({ orderId: 42 }, { tx }));
