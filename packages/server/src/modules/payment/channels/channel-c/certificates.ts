import { type KeyObject, X509Certificate } from 'node:crypto';
import type { ChannelCConfig } from './config.ts';

/**
 * Trust in the `signPubKeyCert` a 5.1.0 message carries (full-channel, "certificate in the
 * message"): it must chain leaf → configured intermediate → configured root, every link inside
 * its validity period at `now`, and the third `@`-part of the leaf's subject CN must be the
 * configured UnionPay value (anyone can get a certificate under the same CA; the CN is what says
 * it is UnionPay's). No revocation check: UnionPay publishes no CRL or OCSP for it.
 */
export type CertCheck = { ok: true; publicKey: KeyObject } | { ok: false; reason: string };

/** A small LRU map: certificates that passed, and the parsed trust anchors of each configuration. */
export class BoundedCache<V> {
  readonly #entries = new Map<string, V>();
  readonly maxEntries: number;
  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
  }
  get(key: string): V | undefined {
    const v = this.#entries.get(key);
    if (v !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, v);
    }
    return v;
  }
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
  get size(): number {
    return this.#entries.size;
  }
}

type Anchors = { root: X509Certificate; middle: X509Certificate };
/** A leaf that passed the chain and CN checks; its validity is checked again at every use. */
type Trusted = { leaf: X509Certificate; anchors: Anchors };

/** Leaves that passed (by fingerprint), and each configuration's parsed root and intermediate. */
export type SignerCertCache = { trusted: BoundedCache<Trusted>; anchors: BoundedCache<Anchors | string> };
export const createSignerCertCache = (maxEntries = 64): SignerCertCache => ({
  trusted: new BoundedCache<Trusted>(maxEntries),
  anchors: new BoundedCache<Anchors | string>(maxEntries),
});

function anchorsOf(config: ChannelCConfig, cache: SignerCertCache): Anchors | string {
  const key = `${config.rootCertPem}\n${config.middleCertPem}`;
  let found = cache.anchors.get(key);
  if (found === undefined) {
    found = parseAnchors(config);
    cache.anchors.set(key, found);
  }
  return found;
}

function parseAnchors(config: ChannelCConfig): Anchors | string {
  let root: X509Certificate;
  let middle: X509Certificate;
  try {
    root = new X509Certificate(config.rootCertPem);
    middle = new X509Certificate(config.middleCertPem);
  } catch {
    return 'configuration: the root or intermediate certificate cannot be read';
  }
  if (!root.ca || !middle.ca) return 'configuration: the root or intermediate certificate is not a CA';
  if (!middle.checkIssued(root) || !middle.verify(root.publicKey)) {
    return 'configuration: the intermediate certificate is not issued by the root';
  }
  return { root, middle };
}

const within = (cert: X509Certificate, now: Date) => cert.validFromDate <= now && now <= cert.validToDate;

/**
 * The third `@`-separated part of the subject CN (`…@…@中国银联股份有限公司@…`), or null. Exactly
 * one CN, and no multi-valued RDN (` + `), so no second attribute can lend its text to the split.
 */
export function signerIdentity(cert: X509Certificate): string | null {
  const cns = cert.subject.split('\n').filter((line) => line.startsWith('CN='));
  if (cns.length !== 1 || cns[0]?.includes(' + ')) return null;
  return cns[0]?.slice(3).split('@')[2] ?? null;
}

export function checkSignerCert(config: ChannelCConfig, pem: string, now: Date, cache: SignerCertCache): CertCheck {
  const anchors = anchorsOf(config, cache);
  if (typeof anchors === 'string') return { ok: false, reason: anchors };
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(pem);
  } catch {
    return { ok: false, reason: 'certificate: signPubKeyCert is not a readable certificate' };
  }
  // Keyed by the configuration's anchors and CN too: a leaf trusted under one is not under another.
  const key = `${leaf.fingerprint256}|${anchors.middle.fingerprint256}|${anchors.root.fingerprint256}|${config.signerCn}`;
  let trusted = cache.trusted.get(key);
  if (!trusted) {
    const reason = chainFailure(leaf, anchors, config.signerCn);
    if (reason) return { ok: false, reason };
    trusted = { leaf, anchors };
    cache.trusted.set(key, trusted);
  }
  for (const [name, cert] of [
    ['signPubKeyCert', trusted.leaf],
    ['intermediate certificate', anchors.middle],
    ['root certificate', anchors.root],
  ] as const) {
    if (!within(cert, now)) {
      return {
        ok: false,
        reason: `certificate expired or not yet valid: ${name} is valid ${cert.validFromDate.toISOString()} – ${cert.validToDate.toISOString()}`,
      };
    }
  }
  return { ok: true, publicKey: trusted.leaf.publicKey };
}

function chainFailure(leaf: X509Certificate, anchors: Anchors, signerCn: string): string | null {
  if (!leaf.checkIssued(anchors.middle) || !leaf.verify(anchors.middle.publicKey)) {
    return 'certificate chain: signPubKeyCert is not issued by the configured intermediate certificate';
  }
  const identity = signerIdentity(leaf);
  if (identity !== signerCn) {
    return `certificate subject: CN identity is ${JSON.stringify(identity)}, expected ${JSON.stringify(signerCn)}`;
  }
  return null;
}
