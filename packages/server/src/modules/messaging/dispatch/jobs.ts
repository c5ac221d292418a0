import type { AppContext } from '../../../platform/context.ts';
import { defineJob, defineSystemTask } from '../../../platform/jobs/define.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Deliverer } from './deliver-service.ts';
import { sendDueDigests } from './digest-service.ts';
import type { Notifier } from './notify-service.ts';
import { leftBehindOutboxIds } from './outbox-repository.ts';

/** An outbox row or pending dispatch older than this with no worker on it was left behind. */
const STALE_MS = 60_000;

type DispatchJobDeps = {
  ctx: AppContext;
  /** expands one outbox row and delivers what it decided to send now */
  expand: (outboxId: number) => Promise<void>;
  deliverer: Deliverer;
  notifier: Notifier;
  catalog: Catalog;
};

/** Sent with each outbox row, in its transaction: expansion and delivery right after the commit. */
const outbox = defineJob<{ outboxId: number }, DispatchJobDeps>({
  name: 'messaging.outbox',
  options: { concurrency: 2, retryLimit: 5 },
  handler: ({ outboxId }, _job, deps) => deps.expand(outboxId),
});

/*
 * The scheduled system tasks of the notification center (spec §3.6).
 * pg-boss fires each cron tick once across instances; the claims inside are atomic anyway.
 */

const deliverDeferred = defineSystemTask<DispatchJobDeps>({
  name: 'messaging.deliverDeferred',
  description: 'Deliver notifications deferred by quiet hours whose window has ended',
  schedule: '* * * * *',
  handler: async (_params, _run, { deliverer }) => ({ released: await deliverer.deliverDeferred() }),
});

const sendDigests = defineSystemTask<DispatchJobDeps>({
  name: 'messaging.sendDigests',
  description: 'Fold due digest notifications into one messaging.digest email per recipient',
  schedule: '* * * * *',
  handler: async (_params, _run, { ctx, notifier, catalog }) => sendDueDigests(ctx, { notifier, catalog }),
});

const sweepOutbox = defineSystemTask<DispatchJobDeps>({
  name: 'messaging.sweepOutbox',
  description: 'Expand and deliver notifications whose worker died or whose wake-up was lost',
  schedule: '* * * * *',
  async handler(_params, _run, { ctx, expand, deliverer }) {
    const now = ctx.clock();
    const stale = new Date(now.getTime() - STALE_MS);
    const ids = await leftBehindOutboxIds(ctx.db, now, stale, 100);
    for (const id of ids) await expand(id);
    const delivered = await deliverer.deliverPending({ createdBefore: stale });
    return { expanded: ids.length, delivered };
  },
});

/** The background work of notification dispatch (registered by the messaging index.ts). */
export const dispatchJobs = { outbox, deliverDeferred, sendDigests, sweepOutbox };
