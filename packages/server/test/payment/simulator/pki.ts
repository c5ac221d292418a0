import 'reflect-metadata';
import { createPrivateKey, createPublicKey, type KeyObject, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * Test-only X.509, the one certificate generator of the channel simulators: node:crypto reads
 * certificates but cannot create them, so CA chains (root → intermediate → leaf) and self-signed
 * certificates are built with @peculiar/x509 over WebCrypto. Keys are RSA 2048 / SHA256withRSA,
 * what the channels use.
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
  publicKey: KeyObject;
  /** for issuing further certificates */
  keys: CryptoKeyPair;
  /** the subject as given, or as text when given as attributes */
  subject: string;
};

/**
 * A name as text, `CN=…,O=…,C=CN` (printable values become PrintableString, others
 * UTF8String), or as attributes in DER order, written as CA tools write them: PrintableString
 * for C, UTF8String for the rest.
 */
export type NameInput = string | [attribute: 'C' | 'O' | 'OU' | 'CN', value: string][];

export type CertOptions = {
  subject: NameInput;
  notBefore?: Date;
  notAfter?: Date;
  /** hex; random when absent */
  serialNumber?: string;
  /** the subject's key pair when it has one already; a new one otherwise */
  keyPair?: { publicKey: KeyObject; privateKey: KeyObject };
};

const DAY = 86_400_000;

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(8));
  bytes[0] = (bytes[0] ?? 0) & 0x7f || 0x01; // a positive integer with no leading zero byte
  return Buffer.from(bytes).toString('hex');
}

function nameOf(input: NameInput): string | x509.Name {
  if (typeof input === 'string') return input;
  return new x509.Name(
    input.map(([attribute, value]) => ({
      [attribute]: [attribute === 'C' ? { printableString: value } : { utf8String: value }],
    })),
  );
}

async function finish(cert: x509.X509Certificate, keys: CryptoKeyPair, subject?: NameInput): Promise<Issued> {
  const certPem = cert.toString('pem');
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as webcrypto.CryptoKey));
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  return {
    certPem,
    cert: new X509Certificate(certPem),
    keyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    privateKey,
    publicKey: createPublicKey(privateKey),
    keys,
    subject: typeof subject === 'string' ? subject : cert.subject,
  };
}

async function keysFor(opts: Pick<CertOptions, 'keyPair'>): Promise<CryptoKeyPair> {
  if (!opts.keyPair) return (await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify'])) as CryptoKeyPair;
  return {
    privateKey: opts.keyPair.privateKey.toCryptoKey(RSA, true, ['sign']) as CryptoKey,
    publicKey: opts.keyPair.publicKey.toCryptoKey(RSA, true, ['verify']) as CryptoKey,
  };
}

function validity(opts: CertOptions, days: number) {
  return {
    notBefore: opts.notBefore ?? new Date(Date.now() - DAY),
    notAfter: opts.notAfter ?? new Date(Date.now() + days * DAY),
  };
}

/** A self-signed CA. */
export async function createRootCa(opts: CertOptions): Promise<Issued> {
  const keys = await keysFor(opts);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: opts.serialNumber ?? randomSerial(),
    name: nameOf(opts.subject),
    ...validity(opts, 3650),
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

/** A self-signed end-entity signing certificate (channel_a's platform certificates are such). */
export async function createSelfSigned(opts: CertOptions): Promise<Issued> {
  const keys = await keysFor(opts);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: opts.serialNumber ?? randomSerial(),
    name: nameOf(opts.subject),
    ...validity(opts, 365),
    signingAlgorithm: RSA,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true),
    ],
  });
  return finish(cert, keys, opts.subject);
}

/** A certificate signed by `issuer`: an intermediate CA when `ca`, else an end-entity signing certificate. */
export async function issueCertificate(issuer: Issued, opts: CertOptions & { ca?: boolean }): Promise<Issued> {
  const keys = await keysFor(opts);
  const usage = opts.ca
    ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign
    : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: opts.serialNumber ?? randomSerial(),
    subject: nameOf(opts.subject),
    // the issuer's name exactly as encoded in its certificate (string types included)
    issuer: new x509.X509Certificate(issuer.certPem).subjectName,
    ...validity(opts, 365),
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

/** A certificate and its key kept as PEM (a simulator's saved state), ready to sign and issue again. */
export async function loadIssued(saved: { certPem: string; keyPem: string }): Promise<Issued> {
  const privateKey = createPrivateKey(saved.keyPem);
  const keys = await keysFor({ keyPair: { privateKey, publicKey: createPublicKey(privateKey) } });
  return finish(new x509.X509Certificate(saved.certPem), keys);
}

/** What `loadIssued` takes back. */
export const savedIssued = (i: Issued) => ({ certPem: i.certPem, keyPem: i.keyPem });
