import { createSign, type KeyObject } from 'node:crypto';

/**
 * A self-signed X.509 v3 certificate (RFC 5280 §4.1) from node:crypto alone, enough to stand in
 * for a channel_a platform certificate: its serial, subject, validity and RSA key are what the
 * adapter reads. No shared PKI helper existed on main when this was written, hence this file.
 */
export function selfSignedCertificate(opts: {
  serialHex: string;
  commonName: string;
  publicKey: KeyObject;
  privateKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
}): string {
  const sha256WithRsa = seq(oid([1, 2, 840, 113549, 1, 1, 11]), Buffer.from([0x05, 0x00]));
  const name = seq(set(seq(oid([2, 5, 4, 3]), tlv(0x0c, Buffer.from(opts.commonName, 'utf8')))));
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(Buffer.from(opts.serialHex, 'hex')),
    sha256WithRsa,
    name,
    seq(utcTime(opts.notBefore), utcTime(opts.notAfter)),
    name,
    opts.publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = createSign('RSA-SHA256').update(tbs).sign(opts.privateKey);
  const der = seq(tbs, sha256WithRsa, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

function tlv(tag: number, value: Buffer): Buffer {
  const n = value.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, value]);
}

const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));

/** DER INTEGER, minimal and positive: redundant leading zero bytes dropped (OpenSSL refuses them), one added when the top bit is set. */
function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = bytes.subarray(start);
  return tlv(0x02, (minimal[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

function oid(parts: number[]): Buffer {
  const [first = 0, second = 0, ...rest] = parts;
  const bytes = [40 * first + second];
  for (const part of rest) {
    const chunk = [part & 0x7f];
    for (let v = part >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime YYMMDDHHMMSSZ (RFC 5280 §4.1.2.5.1: dates through 2049). */
function utcTime(date: Date): Buffer {
  const iso = date.toISOString();
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x17, Buffer.from(text, 'ascii'));
}
