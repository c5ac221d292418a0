import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * Just enough DER to issue RSA certificates signed SHA256withRSA with node:crypto (there was no
 * shared PKI helper when this was written): a root, and leaf certificates it issues — the shape
 * of Alipay's certificate mode (app public-key cert, wallet public-key cert, wallet root cert).
 */
export type IssuedCert = { pem: string; key: KeyObject; subject: Name };
export type Name = [attribute: 'C' | 'O' | 'OU' | 'CN', value: string][];

const OID = { C: '2.5.4.6', O: '2.5.4.10', OU: '2.5.4.11', CN: '2.5.4.3', sha256WithRSA: '1.2.840.113549.1.1.11' };

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const len = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, content]);
}
const seq = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));

function oid(text: string): Buffer {
  const [a = 0, b = 0, ...rest] = text.split('.').map(Number);
  const bytes = [a * 40 + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function integer(bytes: Buffer): Buffer {
  return der(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function name(n: Name): Buffer {
  // PrintableString for C, UTF8String for the rest, as CA tools write them
  return seq(...n.map(([k, v]) => set(seq(oid(OID[k]), der(k === 'C' ? 0x13 : 0x0c, Buffer.from(v, 'utf8'))))));
}

function time(d: Date): Buffer {
  return der(0x17, Buffer.from(`${d.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`, 'ascii'));
}

export function issueCert(opts: {
  subject: Name;
  issuer?: IssuedCert;
  notBefore?: Date;
  notAfter?: Date;
  serial?: Buffer;
  /** the subject's key pair when it already has one; a new one otherwise */
  keyPair?: { publicKey: KeyObject; privateKey: KeyObject };
}): IssuedCert {
  const { publicKey, privateKey } = opts.keyPair ?? generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signer = opts.issuer?.key ?? privateKey;
  const algorithm = seq(oid(OID.sha256WithRSA), der(0x05, Buffer.alloc(0)));
  const serial = opts.serial ?? Buffer.concat([Buffer.from([0x10]), randomBytes(15)]);
  const tbs = seq(
    der(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    algorithm,
    name(opts.issuer?.subject ?? opts.subject),
    seq(
      time(opts.notBefore ?? new Date(Date.now() - 86_400_000)),
      time(opts.notAfter ?? new Date(Date.now() + 365 * 86_400_000)),
    ),
    name(opts.subject),
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, signer);
  const cert = seq(tbs, algorithm, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const b64 =
    cert
      .toString('base64')
      .match(/.{1,64}/g)
      ?.join('\n') ?? '';
  return {
    pem: `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`,
    key: privateKey,
    subject: opts.subject,
  };
}
