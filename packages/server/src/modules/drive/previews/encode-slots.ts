import { driveErrors } from '../errors.ts';

/**
 * Bounds the CPU-heavy re-encodes of one instance: `running` at a time, `waiting` more queued,
 * anything beyond is refused at once (503 drive.preview_busy with Retry-After) rather than
 * piling up memory and latency under a burst of anonymous requests.
 */
export function createEncodeSlots(running: number, waiting: number) {
  let active = 0;
  const queue: Array<() => void> = [];

  async function acquire() {
    if (active < running) {
      active++;
      return;
    }
    if (queue.length >= waiting) throw driveErrors.previewBusy();
    // the releasing caller hands its slot over: `active` stays as it is
    await new Promise<void>((resolve) => queue.push(resolve));
  }

  function release() {
    const next = queue.shift();
    if (next) next();
    else active--;
  }

  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      await acquire();
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}

export type EncodeSlots = ReturnType<typeof createEncodeSlots>;
