import type { ChannelCode } from '../channels/types.ts';

/**
 * Per-channel field registry of channel configurations: the non-secret fields (stored in
 * `fields`) and the secrets (stored encrypted) each channel takes. The channel adapters own
 * what these mean and may refine the lists (issue 16 item 1); the sandbox takes none.
 */
export type FieldSpec = { required: boolean; description: string };
export type ChannelFields = {
  fields: Record<string, FieldSpec>;
  secrets: Record<string, FieldSpec>;
  /** rules across fields (channel_b's two modes) */
  rule?: (fields: Record<string, string>) => FieldError[];
};

const req = (description: string): FieldSpec => ({ required: true, description });
const opt = (description: string): FieldSpec => ({ required: false, description });

/**
 * Aligned with each adapter's configuration schema (channels/<channel>/config.ts): the secrets are
 * exactly the adapter's `CHANNEL_<X>_SECRET_FIELDS` (test/payment/channel-wiring.test.ts holds them
 * equal); `toConfig` in channel-wiring.ts maps these names onto the adapter's config type.
 */
export const CHANNEL_FIELDS: Record<ChannelCode, ChannelFields> = {
  sandbox: { fields: {}, secrets: {} },
  channel_a: {
    fields: {
      baseUrl: opt('gateway base URL (empty: https://api.mch.weixin.qq.com)'),
      mchId: req('merchant id (mchid)'),
      appId: req('app id (appid) the payments are made for'),
      merchantSerialNo: req('serial of the merchant API certificate'),
      platformPublicKeyId: opt('PUB_KEY_ID_… of the platform public-key mode'),
      platformPublicKey: opt('platform public key (PEM) of the public-key mode'),
    },
    secrets: {
      merchantPrivateKey: req('merchant API private key (PEM, PKCS#8 or PKCS#1)'),
      apiV3Key: req('APIv3 key (exactly 32 bytes)'),
    },
  },
  channel_b: {
    fields: {
      baseUrl: opt('gateway URL (empty: https://openapi.alipay.com/gateway.do)'),
      appId: req('app id'),
      signType: opt('RSA2 (default) or RSA'),
      walletPublicKey: opt('public-key mode: the wallet’s public key (PEM or bare base64)'),
      appPublicCert: opt('certificate mode: the app’s public certificate (PEM)'),
      walletPublicCert: opt('certificate mode: the wallet’s public certificate (PEM)'),
      walletRootCert: opt('certificate mode: the wallet’s root certificates (PEM bundle)'),
    },
    secrets: { appPrivateKey: req('app private key (PEM, or the bare base64 of the key tool)') },
    // one of the two modes, whole: the wallet's public key, or the three certificates
    rule: (fields) => {
      if (fields.signType && fields.signType !== 'RSA2' && fields.signType !== 'RSA')
        return [{ field: 'fields.signType', message: 'must be RSA2 or RSA' }];
      const certs = ['appPublicCert', 'walletPublicCert', 'walletRootCert'];
      const given = certs.filter((n) => fields[n]);
      if (fields.walletPublicKey && given.length)
        return [
          { field: 'fields.walletPublicKey', message: 'give the wallet public key or the certificates, not both' },
        ];
      if (fields.walletPublicKey) return [];
      if (given.length === 0)
        return [{ field: 'fields.walletPublicKey', message: 'is required unless the three certificates are given' }];
      return certs
        .filter((n) => !fields[n])
        .map((n) => ({ field: `fields.${n}`, message: 'is required in certificate mode' }));
    },
  },
  channel_c: {
    fields: {
      baseUrl: opt('gateway origin (empty: https://gateway.95516.com)'),
      merId: req('merchant id (merId, 15 characters)'),
      signCertPem: req('the merchant signing certificate (PEM; converted once from the .pfx)'),
      rootCertPem: req('UnionPay root certificate (PEM)'),
      middleCertPem: req('UnionPay intermediate certificate (PEM)'),
      signerCn: opt(
        'third @-part of UnionPay’s signing certificate CN (empty: 中国银联股份有限公司; test environment 00040000:SIGN)',
      ),
    },
    secrets: { signKeyPem: req('the merchant signing private key (PEM)') },
  },
};

type FieldError = { field: string; message: string };

/** Unknown names and missing required entries of one group (`fields` or `secrets`), as field errors. */
export function checkGroup(
  group: 'fields' | 'secrets',
  spec: Record<string, FieldSpec>,
  values: Record<string, string>,
  present: (name: string) => boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const name of Object.keys(values))
    if (!(name in spec)) errors.push({ field: `${group}.${name}`, message: 'is not a field of this channel' });
  for (const [name, f] of Object.entries(spec))
    if (f.required && !present(name))
      errors.push({ field: `${group}.${name}`, message: 'is required for this channel' });
  return errors;
}
