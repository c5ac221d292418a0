import type { ChannelOptions, Contact, Delivery } from '../../src/modules/messaging/channels/types.ts';
import type { EventDef } from '../../src/platform/events/types.ts';
import { catalog } from '../helpers/catalog.ts';

/**
 * A delivery as the dispatcher hands it to an adapter: one event, one recipient (user 1 "Ada"
 * of the tenant unless `contact` says otherwise). Adapter tests build theirs from this.
 */
export function deliveryOf(
  event: string | EventDef,
  tenantId: number | null,
  opts: {
    contact?: Partial<Contact>;
    variables: Record<string, unknown>;
    link?: string | null;
    channelOptions?: ChannelOptions;
    unsubscribeUrl?: string | null;
    dispatchId?: number;
  },
): Delivery {
  const def = typeof event === 'string' ? catalog.get(event) : event;
  if (!def) throw new Error(`${event} is not in the catalog`);
  return {
    dispatchId: opts.dispatchId ?? 1,
    tenantId,
    event: def,
    variables: opts.variables,
    contact: {
      type: 'user',
      id: 1,
      key: 'u:1',
      tenantId,
      name: 'Ada',
      email: null,
      phone: null,
      address: null,
      ...opts.contact,
    },
    link: opts.link ?? null,
    channelOptions: opts.channelOptions ?? {},
    unsubscribeUrl: opts.unsubscribeUrl ?? null,
  };
}
