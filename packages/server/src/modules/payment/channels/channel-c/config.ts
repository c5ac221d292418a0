import { createPrivateKey } from 'node:crypto';
import { type Static, Type } from 'typebox';
import {
  type ConfigProblem,
  certificate,
  currentCertificate,
  gatewayUrl,
  matchesKey,
  rsaPrivateKey,
} from '../config-checks.ts';

/**
 * A channel_c (UnionPay full-channel 5.1.0, signMethod=01) configuration, secrets decrypted.
 * UnionPay hands merchants a PKCS#12 (.pfx) signing file; node:crypto cannot read PKCS#12, so
 * the operator converts it once (`openssl pkcs12 -in acp.pfx -nodes`) and pastes the PEM
 * certificate and key. The root and intermediate certificates are UnionPay's published ones.
 */
export const PRODUCTION_BASE_URL = 'https://gateway.95516.com';
/** The third `@`-part of the CN of UnionPay's production signing certificate. */
export const PRODUCTION_SIGNER_CN = '中国银联股份有限公司';

const Pem = (description: string) => Type.String({ minLength: 1, maxLength: 20_000, description });

export const ChannelCConfigSchema = Type.Object({
  merId: Type.String({ pattern: '^[0-9A-Za-z]{15}$', description: 'merchant id (merId), 15 characters' }),
  signCertPem: Pem('the merchant signing certificate (PEM); its serial is sent as certId'),
  signKeyPem: Pem('the merchant signing private key (PEM, PKCS#8 or PKCS#1) — secret'),
  rootCertPem: Pem("UnionPay's root certificate (PEM)"),
  middleCertPem: Pem("UnionPay's intermediate certificate (PEM)"),
  signerCn: Type.String({
    minLength: 1,
    maxLength: 200,
    description: `the third @-part of the CN of UnionPay's signing certificate: "${PRODUCTION_SIGNER_CN}" in production, "00040000:SIGN" in the test environment`,
  }),
  baseUrl: Type.String({ maxLength: 2048, description: `the gateway origin, ${PRODUCTION_BASE_URL} by default` }),
});

export type ChannelCConfig = Static<typeof ChannelCConfigSchema>;

/** Encrypted at rest by the provider-configuration kit; never answered by the admin API. */
export const CHANNEL_C_SECRET_FIELDS = ['signKeyPem'] as const satisfies readonly (keyof ChannelCConfig)[];

export const GATEWAY_PATHS = {
  front: '/gateway/api/frontTransReq.do',
  back: '/gateway/api/backTransReq.do',
  query: '/gateway/api/queryTrans.do',
} as const;

/**
 * What would make this configuration fail at the channel (checked when it is saved): the signing
 * certificate must carry the signing key and be current, and the intermediate must be issued by
 * the root, or no callback would ever verify.
 */
export function channelCConfigProblems(config: ChannelCConfig, now: Date): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (!/^[0-9A-Za-z]{15}$/.test(config.merId))
    problems.push({ field: 'merId', message: 'must be 15 letters or digits' });
  const key = rsaPrivateKey(problems, 'signKeyPem', () => createPrivateKey(config.signKeyPem));
  const sign = certificate(problems, 'signCertPem', config.signCertPem);
  if (sign) {
    currentCertificate(problems, 'signCertPem', sign, now);
    if (key) matchesKey(problems, 'signCertPem', sign, key, 'signKeyPem');
  }
  const root = certificate(problems, 'rootCertPem', config.rootCertPem);
  const middle = certificate(problems, 'middleCertPem', config.middleCertPem);
  if (root) currentCertificate(problems, 'rootCertPem', root, now);
  if (middle) currentCertificate(problems, 'middleCertPem', middle, now);
  if (root && middle && !(middle.checkIssued(root) && middle.verify(root.publicKey)))
    problems.push({ field: 'middleCertPem', message: 'is not issued by rootCertPem' });
  gatewayUrl(problems, 'baseUrl', config.baseUrl);
  return problems;
}
