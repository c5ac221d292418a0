import { createHash, createPrivateKey, createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import type { ChannelBConfig } from './config.ts';

/**
 * The keys of one configuration, parsed once per call from the stored text. Alipay's key tool
 * prints bare base64 without PEM armour, so both forms are accepted.
 */
export type ChannelBKeys = {
  appKey: KeyObject;
  walletKey: KeyObject;
  /** certificate mode only: sent with every request, and the SN the gateway must answer with */
  certSn: { app: string; walletRoot: string; wallet: string } | null;
};

export function loadKeys(config: ChannelBConfig): ChannelBKeys {
  const appKey = privateKey(config.appPrivateKey);
  if (config.mode === 'publicKey') return { appKey, walletKey: publicKey(config.walletPublicKey), certSn: null };
  const wallet = new X509Certificate(config.walletPublicCert);
  return {
    appKey,
    walletKey: wallet.publicKey,
    certSn: {
      app: certSn(new X509Certificate(config.appPublicCert)),
      walletRoot: rootCertSn(config.walletRootCert),
      wallet: certSn(wallet),
    },
  };
}

export function privateKey(text: string): KeyObject {
  if (text.includes('-----BEGIN')) return createPrivateKey(text);
  const der = Buffer.from(text.replace(/\s+/g, ''), 'base64');
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs1' });
  }
}

export function publicKey(text: string): KeyObject {
  if (text.includes('-----BEGIN')) return createPublicKey(text);
  return createPublicKey({ key: Buffer.from(text.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' });
}

/**
 * Alipay's certificate SN: md5 hex of the issuer written from its last attribute to its first
 * ("CN=…,OU=…,O=…,C=…") followed by the serial number in decimal — as the official SDKs compute
 * `app_cert_sn` and `alipay_cert_sn` (alipay-sdk antcertutil.getCertSN).
 */
export function certSn(cert: X509Certificate): string {
  const issuer = cert.issuer.split('\n').reverse().join(',');
  const serial = BigInt(`0x${cert.serialNumber}`).toString(10);
  return createHash('md5')
    .update(issuer + serial, 'utf8')
    .digest('hex');
}

/**
 * `alipay_root_cert_sn`: the SNs of the RSA-signed certificates of the root bundle joined by "_";
 * the bundle also holds an SM2 root that the SDKs leave out (signature OID 1.2.840.113549.1.1.*).
 */
export function rootCertSn(bundle: string): string {
  const pems = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return pems
    .map((pem) => new X509Certificate(pem))
    .filter((cert) => cert.signatureAlgorithmOid?.startsWith('1.2.840.113549.1.1'))
    .map(certSn)
    .join('_');
}
