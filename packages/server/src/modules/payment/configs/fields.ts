import type { ChannelCode } from '../channels/types.ts';

/**
 * Per-channel field registry of channel configurations: the non-secret fields (stored in
 * `fields`) and the secrets (stored encrypted) each channel takes. The channel adapters own
 * what these mean and may refine the lists (issue 16 item 1); the sandbox takes none.
 */
export type FieldSpec = { required: boolean; description: string };
export type ChannelFields = { fields: Record<string, FieldSpec>; secrets: Record<string, FieldSpec> };

const req = (description: string): FieldSpec => ({ required: true, description });
const opt = (description: string): FieldSpec => ({ required: false, description });

export const CHANNEL_FIELDS: Record<ChannelCode, ChannelFields> = {
  sandbox: { fields: {}, secrets: {} },
  channel_a: {
    fields: {
      baseUrl: opt('gateway base URL (empty: the channel’s own)'),
      mchId: req('merchant id'),
      merchantSerialNo: req('merchant certificate serial'),
      platformPublicKeyId: opt('PUB_KEY_ID_… of the platform public-key mode'),
      platformPublicKey: opt('platform public key (PEM) of the public-key mode'),
    },
    secrets: { privateKey: req('merchant private key (PEM)'), apiV3Key: req('APIv3 key (32 bytes)') },
  },
  channel_b: {
    fields: {
      baseUrl: opt('gateway base URL'),
      appId: req('app id'),
      signType: opt('RSA2 (default) or RSA'),
      walletPublicKey: opt('the wallet’s public key (PEM), or its certificate chain below'),
      walletCertChain: opt('the wallet’s certificate chain (PEM), certificate mode'),
    },
    secrets: { appPrivateKey: req('app private key (PEM)') },
  },
  channel_c: {
    fields: {
      baseUrl: opt('gateway base URL'),
      merId: req('merchant id'),
      rootCert: req('root certificate (PEM)'),
      middleCert: req('intermediate certificate (PEM)'),
      signCertSubjectCn: opt('required third @-part of the signing certificate CN (test environments differ)'),
    },
    secrets: { signCertPrivateKey: req('merchant signing key (PEM)') },
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
