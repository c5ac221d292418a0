import type { SendMailOptions, SMTPPoolSentMessageInfo, Transporter } from 'nodemailer';
import type { EmailConfigRow } from './config-repository.ts';

type Nodemailer = typeof import('nodemailer');
let nodemailerLoad: Promise<Nodemailer> | undefined;
/** nodemailer (~40 modules) is loaded with the first mail: many installations send none. */
const loadNodemailer = async () => {
  nodemailerLoad ??= import('nodemailer');
  return (await nodemailerLoad).default;
};

type Pool = {
  version: number;
  transport: Transporter<SMTPPoolSentMessageInfo>;
  inFlight: number;
  retired: boolean;
};

/**
 * One pooled SMTP transport per configuration, reused across batches (a handshake per mail would
 * dominate a 10,000-mail dispatch). Keyed by id + updatedAt: a saved change builds a new pool, and
 * the old one closes once its in-flight messages finish (closing earlier would fail them).
 */
export function createTransportCache() {
  const pools = new Map<number, Pool>();

  function retire(pool: Pool) {
    pool.retired = true;
    if (pool.inFlight === 0) pool.transport.close();
  }

  function poolFor(nodemailer: Nodemailer['default'], config: EmailConfigRow, password: string | null): Pool {
    const version = config.updatedAt.getTime();
    const current = pools.get(config.id);
    if (current && current.version === version) return current;
    if (current) retire(current);
    const transport = nodemailer.createTransport({
      pool: true,
      host: config.host,
      port: config.port,
      secure: config.secure,
      ...(config.username ? { auth: { user: config.username, pass: password ?? '' } } : {}),
      maxConnections: 5,
      maxMessages: 500,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    const pool: Pool = { version, transport, inFlight: 0, retired: false };
    pools.set(config.id, pool);
    return pool;
  }

  return {
    /** Sends one message through the configuration's pool; rejects with the SMTP error. */
    async send(config: EmailConfigRow, password: string | null, message: SendMailOptions) {
      const pool = poolFor(await loadNodemailer(), config, password);
      pool.inFlight++;
      try {
        return await pool.transport.sendMail(message);
      } finally {
        pool.inFlight--;
        if (pool.retired && pool.inFlight === 0) pool.transport.close();
      }
    },
    /**
     * Connects, greets and signs in (as a send would) and says goodbye: the health check. Its
     * own connection, not the pool's, with short timeouts.
     */
    async verify(config: EmailConfigRow, password: string | null): Promise<void> {
      const transport = (await loadNodemailer()).createTransport({
        host: config.host,
        port: config.port,
        secure: config.secure,
        ...(config.username ? { auth: { user: config.username, pass: password ?? '' } } : {}),
        connectionTimeout: 1_000,
        greetingTimeout: 1_000,
        socketTimeout: 1_000,
      });
      try {
        await transport.verify();
      } finally {
        transport.close();
      }
    },
    close() {
      for (const pool of pools.values()) pool.transport.close();
      pools.clear();
    },
  };
}

export type TransportCache = ReturnType<typeof createTransportCache>;
