import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../platform/db/client.ts';
import { addIdentities, type NewIdentity, type Occurrence, type Recorded, recordBatch } from './repository.ts';

/** large enough to take a burst from many connections, small enough to keep one statement short */
const MAX_BATCH = 100;
/**
 * Batches written at once. A commit waits for its WAL flush (milliseconds on a slow disk): with
 * two, one batch fills while the other commits, and concurrent commits share a flush.
 */
const WRITERS = 2;

type Waiting = { o: Occurrence; done: (r: Recorded) => void; failed: (err: unknown) => void };

/**
 * Group commit of reports. A report arriving while fewer than WRITERS batches are being written
 * is written at once, alone; the reports arriving meanwhile wait and go together, in one
 * statement. Every report is answered only after its batch committed, so a 202 still means
 * stored. Under load this turns many small statements (each a round trip, a plan and a WAL
 * flush) into a few larger ones; when idle it adds nothing.
 *
 * Concurrent batches (here or on other instances) lock groups in one order, so they wait on each
 * other at worst, never in a cycle (repository.ts). A batch the database refuses (one report it
 * cannot store) stored nothing, and is retried report by report, so a failure stays the report's
 * own.
 */
export function createReportWriter(db: Db, log: FastifyBaseLogger) {
  let queue: Waiting[] = [];
  let writing = 0;

  async function writeAll() {
    writing++;
    try {
      while (queue.length) {
        const batch = queue.slice(0, MAX_BATCH);
        queue = queue.slice(MAX_BATCH);
        await write(batch);
      }
    } finally {
      writing--;
    }
  }

  async function write(batch: Waiting[]) {
    let result: Awaited<ReturnType<typeof recordBatch>>;
    try {
      result = await recordBatch(
        db,
        batch.map((w) => w.o),
      );
    } catch (err) {
      if (batch.length === 1) return batch[0]?.failed(err);
      log.warn({ err, reports: batch.length }, 'error report batch refused: retried one by one');
      for (const w of batch) await write([w]);
      return;
    }
    // The reports are stored: whatever happens to the identities, they are answered as such.
    await addNew(result.newIdentities);
    batch.forEach((w, i) => {
      w.done(result.recorded[i] as Recorded);
    });
  }

  /** A refused identity statement stored nothing; one by one, a still-refused identity is logged and left uncounted. */
  async function addNew(ids: NewIdentity[]) {
    if (!ids.length) return;
    try {
      await addIdentities(db, ids);
    } catch (err) {
      if (ids.length === 1) return log.error({ err, groupId: ids[0]?.groupId }, 'error report: identity not recorded');
      for (const id of ids) await addNew([id]);
    }
  }

  return {
    /** resolves once the report is stored */
    record(o: Occurrence): Promise<Recorded> {
      return new Promise((done, failed) => {
        queue.push({ o, done, failed });
        if (writing < WRITERS) void writeAll();
      });
    },
  };
}

export type ReportWriter = ReturnType<typeof createReportWriter>;
