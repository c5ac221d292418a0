import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Channel, Delivery } from '../../src/modules/messaging/channels/types.ts';
import { emailSendLogs } from '../../src/modules/messaging/email/tables.ts';
import type { TestApp } from '../helpers/app.ts';
import { deliveryOf } from './delivery-fixture.ts';

/** What a real SMTP server received: the envelope and the parsed message. */
export type Received = { from: string; to: string[]; user: string | null; mail: ParsedMail };

export type SmtpReceiver = {
  port: number;
  received: Received[];
  close(): Promise<void>;
};

/**
 * A real SMTP server on 127.0.0.1 (plain, no STARTTLS). With `auth` it requires that login;
 * `rejectRcpt` refuses chosen recipients with a 550, as a real server refuses unknown mailboxes.
 */
export async function startSmtp(
  opts: {
    auth?: { user: string; pass: string };
    rejectRcpt?: (address: string) => boolean;
    /** listen on this port (a server started again where a stopped one was); default a free one */
    port?: number;
    /** keep what arrives here (the list of a server stopped before) */
    received?: Received[];
  } = {},
): Promise<SmtpReceiver> {
  const received: Received[] = opts.received ?? [];
  const server = new SMTPServer({
    secure: false,
    logger: false,
    // the app's pooled connections stay open; don't wait 30 s for them when a test closes the server
    closeTimeout: 100,
    disabledCommands: opts.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.auth?.user && auth.password === opts.auth?.pass)
        return cb(null, { user: auth.username });
      cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, cb) {
      if (opts.rejectRcpt?.(address.address)) {
        return cb(Object.assign(new Error(`Mailbox ${address.address} unavailable`), { responseCode: 550 }));
      }
      cb();
    },
    onData(stream, session, cb) {
      simpleParser(stream).then(
        (mail) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            user: (session.user as string | undefined) ?? null,
            mail,
          });
          cb();
        },
        (err: Error) => cb(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Saves the SMTP configuration of a scope through the API. */
export async function saveConfig(t: TestApp, token: string, port: number, extra: Record<string, unknown> = {}) {
  const res = await t.app.inject({
    method: 'PUT',
    url: '/api/email-config',
    headers: { authorization: `Bearer ${token}` },
    payload: { host: '127.0.0.1', port, fromAddress: 'noreply@atrium.test', fromName: 'Atrium', ...extra },
  });
  if (res.statusCode !== 200) throw new Error(`saving the email config failed: ${res.body}`);
  return res.json().data as { id: number };
}

/** A delivery as the dispatcher builds it. */
export function delivery(
  tenantId: number | null,
  contact: Partial<Delivery['contact']>,
  opts: {
    event?: string;
    variables?: Record<string, unknown>;
    link?: string | null;
    unsubscribeUrl?: string | null;
    templates?: Partial<Record<Channel, string>>;
    dispatchId?: number;
  } = {},
): Delivery {
  return deliveryOf(opts.event ?? 'ops.monitor.alert', tenantId, {
    ...opts,
    contact,
    variables: opts.variables ?? { host: 'db-1', metric: 'cpu', value: '97%', threshold: '90%', level: 'critical' },
    channelOptions: opts.templates ? { templates: opts.templates } : {},
  });
}

/** The header value as a string (mailparser keeps structured values for some headers). */
export function headerOf(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase());
  return line?.line
    .slice(line.line.indexOf(':') + 1)
    .replace(/\r?\n[ \t]+/g, ' ')
    .trim();
}

/** An email send log written straight to the table (a fixture: send logs have no create route). */
export async function emailLogRow(t: TestApp, tenantId: number): Promise<number> {
  const [row] = await t.database.db
    .insert(emailSendLogs)
    .values({ tenantId, toAddress: 'b@b.test', subject: 'B', status: 'sent' })
    .returning({ id: emailSendLogs.id });
  return (row as { id: number }).id;
}
