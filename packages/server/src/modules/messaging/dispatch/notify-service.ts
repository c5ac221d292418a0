import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { EventKey, EventVariables } from '../../../platform/events/types.ts';
import type { Job } from '../../../platform/jobs/define.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { CHANNELS, type Channel, type ChannelOptions, type Recipient } from '../channels/types.ts';
import { insertOutbox } from './outbox-repository.ts';
import type { ChannelPolicy } from './tables.ts';

export type NotifyInput<K extends EventKey> = {
  /** the tenant the notification belongs to (null = platform); recipients outside it are unreachable */
  tenantId: number | null;
  recipients: Recipient[];
  variables: EventVariables<K>;
  /** per-dispatch channel policy (spec §2.3): `only` replaces the candidates, `enable` adds, `disable` removes */
  channels?: ChannelPolicy;
  channelOptions?: ChannelOptions;
  /** deep link into the console */
  link?: string;
  /** the same key for the same event and recipient × channel again → `deduped` */
  idempotencyKey?: string;
};

export type Notifier = {
  /** Writes the outbox row in its own transaction; delivery follows asynchronously. Answers the outbox id. */
  notify<K extends EventKey>(eventKey: K, input: NotifyInput<K>): Promise<number>;
  /** Writes the outbox row inside the caller's transaction: a rollback sends nothing (spec §3.6). */
  notifyWithin<K extends EventKey>(tx: Db, eventKey: K, input: NotifyInput<K>): Promise<number>;
};

/** The one dispatch entry point (spec §4.4 rules 1–2). Mistakes in the call are thrown, not recorded. */
export function createNotifier(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  catalog: Catalog,
  outbox: Job<{ outboxId: number }>,
): Notifier {
  const notifyWithin = async <K extends EventKey>(tx: Db, eventKey: K, input: NotifyInput<K>) => {
    const variables = input.variables as Record<string, unknown>;
    catalog.checked(eventKey, variables);
    checkChannels(input.channels, input.recipients);
    const id = await insertOutbox(tx, {
      tenantId: input.tenantId,
      eventKey,
      input: {
        recipients: input.recipients,
        variables,
        channels: input.channels,
        channelOptions: input.channelOptions,
        link: input.link ?? null,
        idempotencyKey: input.idempotencyKey ?? null,
      },
      createdAt: ctx.clock(),
    });
    if (id === undefined) throw new Error('notification outbox insert returned nothing');
    await outbox.send({ outboxId: id }, { tx });
    return id;
  };
  return {
    notifyWithin,
    notify: (eventKey, input) => ctx.db.transaction((tx) => notifyWithin(tx, eventKey, input)),
  };
}

function checkChannels(policy: ChannelPolicy | undefined, recipients: Recipient[]) {
  const named: Channel[] = [
    ...(policy?.only ?? []),
    ...(policy?.enable ?? []),
    ...(policy?.disable ?? []),
    ...recipients.flatMap((r) => (r.type === 'external' ? [r.channel] : [])),
  ];
  for (const c of named) if (!CHANNELS.includes(c)) throw new Error(`notification: unknown channel "${c}"`);
  for (const r of recipients) {
    if (r.type === 'external' && !r.address.trim())
      throw new Error('notification: an external recipient needs an address');
    if (r.type !== 'external' && !(Number.isInteger(r.id) && r.id > 0))
      throw new Error(`notification: invalid ${r.type} id ${r.id}`);
  }
}
