import { createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import type { Egress } from '../../../../platform/egress/client.ts';
import { ChannelCallError } from '../types.ts';
import { decryptResource, type EncryptedResource } from './aead.ts';
import type { CertificateCache } from './certificate-cache.ts';
import { apiV3KeyBytes, type ChannelAConfig, PUBLIC_KEY_ID_PREFIX } from './config.ts';
import { timestampProblem, verifySha256Rsa } from './signature.ts';
import { sendSigned } from './transport.ts';

/** Spec §8: platform certificates are cached 12 hours. */
const CERTIFICATE_TTL_SECONDS = 12 * 60 * 60;
/** An unknown serial triggers at most one download per merchant per minute, so bogus serials cannot make us hammer the channel. */
const REFRESH_INTERVAL_SECONDS = 60;

type StoredCertificate = { serialNo: string; pem: string };
export type PlatformKey = { key: KeyObject } | { problem: string };
/** The signature headers of a response or a callback, names lower-cased. */
export type SignatureHeaders = { serial?: string; signature?: string; timestamp?: string; nonce?: string };

export function signatureHeaders(headers: Record<string, string | undefined>): SignatureHeaders {
  return {
    serial: headers['wechatpay-serial'],
    signature: headers['wechatpay-signature'],
    timestamp: headers['wechatpay-timestamp'],
    nonce: headers['wechatpay-nonce'],
  };
}

/**
 * Why a signed message (`timestamp\nnonce\nbody\n`) fails with `key`, or null when it verifies:
 * the replay window first, then SHA256withRSA.
 */
export function signatureProblem(h: SignatureHeaders, body: string | Buffer, key: KeyObject, now: Date): string | null {
  if (!h.signature || !h.nonce) return 'signature headers missing';
  const stale = timestampProblem(h.timestamp, now);
  if (stale) return stale;
  // the raw body byte for byte: re-encoding a parsed body would break signatures over non-UTF-8 or re-spaced JSON
  const message = Buffer.concat([Buffer.from(`${h.timestamp}\n${h.nonce}\n`), Buffer.from(body), Buffer.from('\n')]);
  return verifySha256Rsa(message, h.signature, key) ? null : 'signature does not verify';
}

/** Parsed keys by PEM: parsing on every callback would cost as much as the verification itself. */
const parsedKeys = new Map<string, { key: KeyObject; validTo: Date | null }>();
function parsedKey(pem: string, kind: 'certificate' | 'public-key') {
  let parsed = parsedKeys.get(pem);
  if (!parsed) {
    if (parsedKeys.size > 256) parsedKeys.clear();
    if (kind === 'certificate') {
      const cert = new X509Certificate(pem);
      parsed = { key: cert.publicKey, validTo: cert.validToDate };
    } else {
      parsed = { key: createPublicKey(pem), validTo: null };
    }
    parsedKeys.set(pem, parsed);
  }
  return parsed;
}

/**
 * The platform key that signed a message, chosen by its `Wechatpay-Serial`: a `PUB_KEY_ID_…`
 * selects the configured platform public key; any other serial a platform certificate, downloaded
 * from `GET /v3/certificates` and cached, downloaded again when the serial is unknown (rotation:
 * a new certificate is published about 24 h before it signs).
 */
export function createPlatformKeys(deps: { egress: Egress; clock: () => Date; cache: CertificateCache }) {
  const cacheKey = (config: ChannelAConfig) => `payment:channel_a:certificates:${config.mchId}`;

  async function cached(config: ChannelAConfig): Promise<StoredCertificate[] | null> {
    const raw = await deps.cache.get(cacheKey(config));
    return raw ? (JSON.parse(raw) as StoredCertificate[]) : null;
  }

  /**
   * Callers in this process share one download in flight (a burst of callbacks after a start or
   * a rotation all wait for it rather than find the throttle taken); the throttle in the cache
   * bounds the downloads of all instances together.
   */
  const inFlight = new Map<string, Promise<StoredCertificate[] | null>>();
  function refresh(config: ChannelAConfig): Promise<StoredCertificate[] | null> {
    const key = cacheKey(config);
    let pending = inFlight.get(key);
    if (!pending) {
      pending = (async () => {
        const { count } = await deps.cache.incr(`${key}:refresh`, REFRESH_INTERVAL_SECONDS);
        if (count > 1) return null;
        const certificates = await download(config);
        await deps.cache.set(key, JSON.stringify(certificates), CERTIFICATE_TTL_SECONDS);
        return certificates;
      })().finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  }

  /**
   * The download is a signed answer like any other; its signer may be one of the certificates it
   * carries. Trusting that is sound because each certificate decrypted with the APIv3 key, which
   * only the channel and the merchant hold (the GCM tag authenticates it).
   */
  async function download(config: ChannelAConfig): Promise<StoredCertificate[]> {
    const now = deps.clock();
    const answer = await sendSigned(deps.egress, config, { method: 'GET', pathAndQuery: '/v3/certificates', now });
    if (answer.status !== 200)
      throw new ChannelCallError(`channel_a certificate download answered ${answer.status}`, { status: answer.status });
    let certificates: StoredCertificate[];
    try {
      const data = (
        JSON.parse(answer.body) as { data: { serial_no: string; encrypt_certificate: EncryptedResource }[] }
      ).data;
      const key = apiV3KeyBytes(config);
      certificates = data.map((entry) => {
        const pem = decryptResource(entry.encrypt_certificate, key);
        parsedKey(pem, 'certificate'); // a certificate that does not parse is refused here, not at the next callback
        return { serialNo: entry.serial_no.toUpperCase(), pem };
      });
    } catch (err) {
      throw new ChannelCallError(`channel_a certificate download unreadable: ${(err as Error).message}`);
    }
    const h = signatureHeaders(answer.headers);
    const signer = h.serial?.startsWith(PUBLIC_KEY_ID_PREFIX)
      ? publicKeyMode(config, h.serial)
      : certificateKey(
          certificates.find((c) => c.serialNo === h.serial?.toUpperCase()),
          now,
        );
    const problem = 'key' in signer ? signatureProblem(h, answer.body, signer.key, now) : signer.problem;
    if (problem) throw new ChannelCallError(`channel_a certificate download not trusted: ${problem}`);
    return certificates;
  }

  return {
    async keyFor(config: ChannelAConfig, serial: string | undefined): Promise<PlatformKey> {
      if (!serial) return { problem: 'serial header missing' };
      if (serial.startsWith(PUBLIC_KEY_ID_PREFIX)) return publicKeyMode(config, serial);
      const wanted = serial.toUpperCase();
      let certificates = await cached(config);
      if (!certificates?.some((c) => c.serialNo === wanted)) {
        try {
          certificates = (await refresh(config)) ?? certificates;
        } catch (err) {
          return { problem: `platform certificates unavailable: ${(err as Error).message}` };
        }
      }
      return certificateKey(
        certificates?.find((c) => c.serialNo === wanted),
        deps.clock(),
      );
    },
  };
}

function publicKeyMode(config: ChannelAConfig, serial: string): PlatformKey {
  if (!config.platformPublicKeyId || !config.platformPublicKey)
    return { problem: 'platform public-key mode not configured' };
  if (config.platformPublicKeyId !== serial) return { problem: `unknown platform public key id ${serial}` };
  try {
    return { key: parsedKey(config.platformPublicKey, 'public-key').key };
  } catch {
    return { problem: 'configured platform public key is not a PEM public key' };
  }
}

function certificateKey(certificate: StoredCertificate | undefined, now: Date): PlatformKey {
  if (!certificate) return { problem: 'unknown platform certificate serial' };
  const parsed = parsedKey(certificate.pem, 'certificate');
  if (parsed.validTo && parsed.validTo < now) return { problem: 'platform certificate expired' };
  return { key: parsed.key };
}
