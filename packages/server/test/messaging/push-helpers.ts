import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Delivery } from '../../src/modules/messaging/channels/types.ts';
import { deliveryOf } from './delivery-fixture.ts';

/**
 * A local stand-in for the aggregation push provider's Push API (JPush v3): it checks HTTP Basic
 * authentication against the app key and master secret it knows, records each accepted body, and
 * answers error 1011 when none of the registration ids is one it knows as `unknown`.
 */
export type PushReceiver = {
  url: string;
  host: string;
  accepted: { body: Record<string, unknown>; contentType: string | undefined }[];
  rejected: number;
  unknown: Set<string>;
  close(): Promise<void>;
};

export async function startPushReceiver(appKey: string, masterSecret: string): Promise<PushReceiver> {
  const state = { accepted: [] as PushReceiver['accepted'], rejected: 0, unknown: new Set<string>() };
  const expected = `Basic ${Buffer.from(`${appKey}:${masterSecret}`).toString('base64')}`;
  let msgId = 18100000000;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/v3/push') return answer(404, { error: { code: 1000, message: 'no' } });
      if (req.headers.authorization !== expected) {
        state.rejected++;
        return answer(401, { error: { code: 1004, message: 'Authen failed' } });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        audience?: { registration_id?: string[] };
      };
      state.accepted.push({ body, contentType: req.headers['content-type'] });
      const ids = body.audience?.registration_id ?? [];
      msgId++;
      if (ids.every((id) => state.unknown.has(id))) {
        return answer(400, {
          error: {
            code: 1011,
            message: 'cannot find user by this audience or has been inactive for more than 255 days',
          },
          msg_id: String(msgId),
        });
      }
      answer(200, { sendno: '0', msg_id: String(msgId) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    accepted: state.accepted,
    unknown: state.unknown,
    get rejected() {
      return state.rejected;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A delivery of `workflow.task.urged` to one recipient, as the dispatcher builds it. */
export function pushDelivery(
  tenantId: number | null,
  contact: Partial<Delivery['contact']>,
  opts: { dispatchId?: number; link?: string | null } = {},
): Delivery {
  return deliveryOf('workflow.task.urged', tenantId, {
    contact,
    variables: { taskTitle: 'Expense #42', processName: 'Expenses', actorName: 'Bob' },
    link: opts.link === undefined ? '/workflow/tasks/42' : opts.link,
    dispatchId: opts.dispatchId,
  });
}
