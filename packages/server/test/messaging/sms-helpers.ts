import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Delivery } from '../../src/modules/messaging/channels/types.ts';
import { smsSendLogs } from '../../src/modules/messaging/sms/tables.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import type { TestApp } from '../helpers/app.ts';
import { catalog } from '../helpers/catalog.ts';
import { deliveryOf } from './delivery-fixture.ts';

/**
 * Local stand-ins for the two SMS providers' SendSms APIs. Each VERIFIES the request signature by
 * recomputing it here, from the providers' documented algorithms (written independently of the
 * code under test), with the secret it knows for the access key id; a mismatch gets the provider's
 * own error answer. Numbers in `refuse` get the provider's per-number error.
 */
export type SmsReceiver = {
  url: string;
  host: string;
  /** accepted (correctly signed) requests: Aliyun's form parameters, Tencent's JSON body */
  accepted: Record<string, unknown>[];
  /** requests refused for their signature */
  rejected: number;
  refuse: Set<string>;
  close(): Promise<void>;
};

async function listen(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** RFC 3986 byte by byte: unreserved ASCII stays, every other byte is %XY in upper case. */
function rfc3986(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Alibaba Cloud RPC: POST form parameters, HMAC-SHA1 signature over the sorted, encoded query. */
export async function startAliyunReceiver(secrets: Record<string, string>): Promise<SmsReceiver> {
  const r = { accepted: [] as Record<string, unknown>[], rejected: 0, refuse: new Set<string>() };
  const server = await listen((req, body, res) => {
    const params = Object.fromEntries(new URLSearchParams(body));
    const { Signature: given, ...rest } = params;
    const secret = secrets[rest.AccessKeyId ?? ''];
    const pairs = Object.entries(rest)
      .map(([k, v]) => [rfc3986(k), rfc3986(v)])
      .sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const stringToSign = `${req.method}&${rfc3986('/')}&${rfc3986(pairs)}`;
    const expected = secret ? createHmac('sha1', `${secret}&`).update(stringToSign).digest('base64') : null;
    const wellFormed =
      rest.Action === 'SendSms' &&
      rest.Version === '2017-05-25' &&
      rest.Format === 'JSON' &&
      rest.SignatureMethod === 'HMAC-SHA1' &&
      rest.SignatureVersion === '1.0' &&
      /^[\w-]{8,}$/.test(rest.SignatureNonce ?? '') &&
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(rest.Timestamp ?? '');
    if (!expected || expected !== given || !wellFormed) {
      r.rejected++;
      return json(res, 400, {
        RequestId: randomUUID(),
        Code: 'SignatureDoesNotMatch',
        Message: 'Specified signature is not matched with our calculation.',
      });
    }
    r.accepted.push(params);
    if (r.refuse.has(rest.PhoneNumbers ?? '')) {
      return json(res, 200, { RequestId: randomUUID(), Code: 'isv.MOBILE_NUMBER_ILLEGAL', Message: '非法手机号' });
    }
    json(res, 200, { RequestId: randomUUID(), Code: 'OK', Message: 'OK', BizId: `9006${r.accepted.length}^0` });
  });
  return {
    ...server,
    refuse: r.refuse,
    accepted: r.accepted,
    get rejected() {
      return r.rejected;
    },
  };
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac256 = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s).digest();

/** Tencent Cloud API 3.0: JSON body, TC3-HMAC-SHA256 Authorization over content-type and host. */
export async function startTencentReceiver(secrets: Record<string, string>): Promise<SmsReceiver> {
  const r = { accepted: [] as Record<string, unknown>[], rejected: 0, refuse: new Set<string>() };
  const server = await listen((req, body, res) => {
    const auth =
      /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d\d-\d\d)\/sms\/tc3_request, SignedHeaders=content-type;host, Signature=([0-9a-f]{64})$/.exec(
        req.headers.authorization ?? '',
      );
    const timestamp = String(req.headers['x-tc-timestamp'] ?? '');
    let valid = false;
    if (auth && /^\d+$/.test(timestamp)) {
      const [, secretId = '', date = '', given] = auth;
      const secret = secrets[secretId];
      const canonical = [
        'POST',
        '/',
        '',
        `content-type:${String(req.headers['content-type']).toLowerCase()}\nhost:${String(req.headers.host).toLowerCase()}\n`,
        'content-type;host',
        sha256(body),
      ].join('\n');
      const toSign = ['TC3-HMAC-SHA256', timestamp, `${date}/sms/tc3_request`, sha256(canonical)].join('\n');
      const key = secret ? hmac256(hmac256(hmac256(`TC3${secret}`, date), 'sms'), 'tc3_request') : null;
      valid =
        key !== null &&
        createHmac('sha256', key).update(toSign).digest('hex') === given &&
        new Date(Number(timestamp) * 1000).toISOString().slice(0, 10) === date &&
        req.headers['x-tc-action'] === 'SendSms' &&
        req.headers['x-tc-version'] === '2021-01-11' &&
        Boolean(req.headers['x-tc-region']);
    }
    const requestId = randomUUID();
    if (!valid) {
      r.rejected++;
      return json(res, 200, {
        Response: {
          Error: { Code: 'AuthFailure.SignatureFailure', Message: 'The provided credentials could not be validated.' },
          RequestId: requestId,
        },
      });
    }
    const parsed = JSON.parse(body) as { PhoneNumberSet: string[] };
    r.accepted.push({ ...parsed, region: req.headers['x-tc-region'] });
    const phone = parsed.PhoneNumberSet[0] ?? '';
    const status = r.refuse.has(phone)
      ? { Code: 'LimitExceeded.PhoneNumberDailyLimit', Message: 'the number reached its daily limit' }
      : { Code: 'Ok', Message: 'send success', SerialNo: `2640:${r.accepted.length}` };
    json(res, 200, {
      Response: { SendStatusSet: [{ PhoneNumber: phone, Fee: 1, IsoCode: 'CN', ...status }], RequestId: requestId },
    });
  });
  return {
    ...server,
    refuse: r.refuse,
    accepted: r.accepted,
    get rejected() {
      return r.rejected;
    },
  };
}

/** A delivery of `workflow.task.urged` as the dispatcher builds it; `smsTemplate` plays an event's own template. */
export function smsDelivery(
  tenantId: number | null,
  contact: Partial<Delivery['contact']>,
  opts: {
    smsTemplate?: string;
    override?: string;
    variables?: Record<string, unknown>;
    dispatchId?: number;
  } = {},
): Delivery {
  const base = catalog.get('workflow.task.urged');
  if (!base) throw new Error('workflow.task.urged is not in the catalog');
  return deliveryOf({ ...base, templates: opts.smsTemplate ? { sms: opts.smsTemplate } : {} }, tenantId, {
    contact: { phone: '13800000000', ...contact },
    variables: opts.variables ?? { taskTitle: 'Expense #42', processName: 'Expenses', actorName: 'Bob' },
    channelOptions: opts.override ? { templates: { sms: opts.override } } : {},
    dispatchId: opts.dispatchId,
  });
}

/** A send log row of a tenant, written directly (send logs have no create route). */
export async function smsLogRow(t: TestApp, tenantId: number | null): Promise<number> {
  const [row] = await t.database.db
    .insert(smsSendLogs)
    .values({
      tenantId: platformKey(tenantId),
      phone: '13800000000',
      status: 'sent',
      provider: 'aliyun',
      providerMessageId: 'biz-1',
    })
    .returning({ id: smsSendLogs.id });
  if (!row) throw new Error('sms log insert failed');
  return row.id;
}
