import { createPrivateKey, createPublicKey } from 'node:crypto';
import { type Static, Type } from 'typebox';
import { type ConfigProblem, gatewayUrl, rsaPrivateKey, rsaPublicKey } from '../config-checks.ts';

/**
 * A channel_a (WeChat Pay API v3) merchant configuration, secrets in clear (the payment module
 * stores them sealed with the provider-configuration kit). Certificate mode and platform
 * public-key mode can be configured at once: merchants migrating between them receive callbacks
 * signed either way for about a week.
 */
export const channelAConfigSchema = Type.Object({
  mchId: Type.String({ minLength: 1, maxLength: 32 }),
  appId: Type.String({ minLength: 1, maxLength: 32 }),
  /** serial of the merchant API certificate, sent in every request's Authorization header */
  merchantSerialNo: Type.String({ minLength: 1, maxLength: 64 }),
  /** PEM, PKCS#8 (`BEGIN PRIVATE KEY`) or PKCS#1 (`BEGIN RSA PRIVATE KEY`) */
  merchantPrivateKey: Type.String({ minLength: 1 }),
  /** the APIv3 key: exactly 32 bytes, the AES-256-GCM key of callback resources and certificates */
  apiV3Key: Type.String({ minLength: 32, maxLength: 32 }),
  /** platform public-key mode: the id (`PUB_KEY_ID_…`) and the PEM public key */
  platformPublicKeyId: Type.Optional(Type.Union([Type.String({ pattern: '^PUB_KEY_ID_' }), Type.Null()])),
  platformPublicKey: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
  /** the channel's gateway; a simulator in tests */
  baseUrl: Type.Optional(Type.String({ format: 'uri' })),
});

export type ChannelAConfig = Static<typeof channelAConfigSchema>;

/** The fields the payment module must store encrypted and never answer. */
export const CHANNEL_A_SECRET_FIELDS = [
  'merchantPrivateKey',
  'apiV3Key',
] as const satisfies readonly (keyof ChannelAConfig)[];

export const CHANNEL_A_DEFAULT_BASE_URL = 'https://api.mch.weixin.qq.com';

/** Serials of the platform public-key mode start so; anything else names a platform certificate. */
export const PUBLIC_KEY_ID_PREFIX = 'PUB_KEY_ID_';

/** 32 bytes exactly: a 32-character string of multi-byte characters would not be an AES-256 key. */
export function apiV3KeyBytes(config: ChannelAConfig): Buffer {
  const key = Buffer.from(config.apiV3Key, 'utf8');
  if (key.length !== 32) throw new Error('channel_a apiV3Key must be exactly 32 bytes');
  return key;
}

export function channelABaseUrl(config: ChannelAConfig): string {
  return (config.baseUrl ?? CHANNEL_A_DEFAULT_BASE_URL).replace(/\/+$/, '');
}

/** What would make this configuration fail at the channel (checked when it is saved). */
export function channelAConfigProblems(config: ChannelAConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  rsaPrivateKey(problems, 'merchantPrivateKey', () => createPrivateKey(config.merchantPrivateKey));
  if (Buffer.byteLength(config.apiV3Key, 'utf8') !== 32)
    problems.push({ field: 'apiV3Key', message: 'must be exactly 32 bytes' });
  const { platformPublicKeyId: id, platformPublicKey: key } = config;
  if (id && !id.startsWith(PUBLIC_KEY_ID_PREFIX))
    problems.push({ field: 'platformPublicKeyId', message: `must start with ${PUBLIC_KEY_ID_PREFIX}` });
  if (Boolean(id) !== Boolean(key))
    problems.push({
      field: id ? 'platformPublicKey' : 'platformPublicKeyId',
      message: 'the public-key mode needs both the key id and the key',
    });
  if (key) rsaPublicKey(problems, 'platformPublicKey', () => createPublicKey(key));
  gatewayUrl(problems, 'baseUrl', config.baseUrl);
  return problems;
}
