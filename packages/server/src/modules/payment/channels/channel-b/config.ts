import { Type } from 'typebox';
import {
  type ConfigProblem,
  certificate,
  currentCertificate,
  gatewayUrl,
  matchesKey,
  parsed,
  rsaPrivateKey,
  rsaPublicKey,
} from '../config-checks.ts';
import { privateKey, publicKey, rootCertSn } from './keys.ts';

/**
 * A channel_b (Alipay open platform) configuration, secrets decrypted. The wallet's key is given
 * either as a public key (public-key mode) or as certificates (certificate mode); with
 * certificates the verifying key is the one in `walletPublicCert`, and requests carry the SNs of
 * the app certificate and of the wallet root certificates.
 */
export type ChannelBSignType = 'RSA2' | 'RSA';

export type ChannelBConfig = {
  appId: string;
  /** PEM, PKCS#1 or PKCS#8, or the bare base64 the Alipay key tool prints */
  appPrivateKey: string;
  signType?: ChannelBSignType;
  /** default https://openapi.alipay.com/gateway.do; a simulator in tests */
  baseUrl?: string;
} & (
  | { mode: 'publicKey'; walletPublicKey: string }
  | { mode: 'cert'; appPublicCert: string; walletPublicCert: string; walletRootCert: string }
);

export const CHANNEL_B_GATEWAY = 'https://openapi.alipay.com/gateway.do';

/** Fields stored encrypted by the provider-configuration kit. */
export const CHANNEL_B_SECRET_FIELDS = ['appPrivateKey'] as const;

const common = {
  appId: Type.String({ minLength: 1, maxLength: 32 }),
  appPrivateKey: Type.String({ minLength: 1 }),
  signType: Type.Optional(Type.Union([Type.Literal('RSA2'), Type.Literal('RSA')])),
  baseUrl: Type.Optional(Type.String({ format: 'uri' })),
};

export const ChannelBConfigSchema = Type.Union([
  Type.Object({ ...common, mode: Type.Literal('publicKey'), walletPublicKey: Type.String({ minLength: 1 }) }),
  Type.Object({
    ...common,
    mode: Type.Literal('cert'),
    appPublicCert: Type.String({ minLength: 1 }),
    walletPublicCert: Type.String({ minLength: 1 }),
    walletRootCert: Type.String({ minLength: 1 }),
  }),
]);

/** What would make this configuration fail at the channel (checked when it is saved). */
export function channelBConfigProblems(config: ChannelBConfig, now: Date): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const appKey = rsaPrivateKey(problems, 'appPrivateKey', () => privateKey(config.appPrivateKey));
  if (config.mode === 'publicKey') {
    rsaPublicKey(problems, 'walletPublicKey', () => publicKey(config.walletPublicKey));
  } else {
    const app = certificate(problems, 'appPublicCert', config.appPublicCert);
    if (app) {
      currentCertificate(problems, 'appPublicCert', app, now);
      if (appKey) matchesKey(problems, 'appPublicCert', app, appKey, 'appPrivateKey');
    }
    const wallet = certificate(problems, 'walletPublicCert', config.walletPublicCert);
    if (wallet) currentCertificate(problems, 'walletPublicCert', wallet, now);
    const roots = parsed(
      problems,
      'walletRootCert',
      () => rootCertSn(config.walletRootCert),
      'is not a readable PEM bundle',
    );
    if (roots === '') problems.push({ field: 'walletRootCert', message: 'holds no RSA root certificate' });
  }
  gatewayUrl(problems, 'baseUrl', config.baseUrl);
  return problems;
}
