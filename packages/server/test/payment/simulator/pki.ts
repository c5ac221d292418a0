import 'reflect-metadata';
import { createPrivateKey, type KeyObject, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * Test-only X.509: node:crypto reads certificates but cannot create them, so the channel
 * simulators build their CA chains (root → intermediate → leaf) with @peculiar/x509 over
 * WebCrypto. Keys are RSA 2048 / SHA256withRSA, what the channels use.
 */
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;

export type Issued = {
  /** PEM of the certificate */
  certPem: string;
  cert: X509Certificate;
  /** PKCS#8 PEM of its private key */
  keyPem: string;
  privateKey: KeyObject;
  /** for issuing further certificates */
  keys: CryptoKeyPair;
  subject: string;
};

export type CertOptions = {
  /** an RFC 4514-style name: `CN=…,O=…,C=CN` (UTF-8 values are kept as UTF8String) */
  subject: string;
  notBefore?: Date;
  notAfter?: Date;
  /** hex; random when absent */
  serialNumber?: string;
};

const DAY = 86_400_000;

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(8));
  bytes[0] = (bytes[0] ?? 0) & 0x7f || 0x01; // a positive integer with no leading zero byte
  return Buffer.from(bytes).toString('hex');
}

async function finish(cert: x509.X509Certificate, keys: CryptoKeyPair, subject: string): Promise<Issued> {
  const certPem = cert.toString('pem');
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  return {
    certPem,
    cert: new X509Certificate(certPem),
    keyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    privateKey,
    keys,
    subject,
  };
}

const generateKeys = () => webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;

/** A self-signed CA. */
export async function createRootCa(opts: CertOptions): Promise<Issued> {
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: opts.serialNumber ?? randomSerial(),
    name: opts.subject,
    notBefore: opts.notBefore ?? new Date(Date.now() - DAY),
    notAfter: opts.notAfter ?? new Date(Date.now() + 3650 * DAY),
    signingAlgorithm: RSA,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return finish(cert, keys, opts.subject);
}

/** A certificate signed by `issuer`: an intermediate CA when `ca`, else an end-entity signing certificate. */
export async function issueCertificate(issuer: Issued, opts: CertOptions & { ca?: boolean }): Promise<Issued> {
  const keys = await generateKeys();
  const usage = opts.ca
    ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign
    : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: opts.serialNumber ?? randomSerial(),
    subject: opts.subject,
    issuer: issuer.subject,
    notBefore: opts.notBefore ?? new Date(Date.now() - DAY),
    notAfter: opts.notAfter ?? new Date(Date.now() + 365 * DAY),
    signingAlgorithm: RSA,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(Boolean(opts.ca), undefined, true),
      new x509.KeyUsagesExtension(usage, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey),
    ],
  });
  return finish(cert, keys, opts.subject);
}
