import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import type { ChannelCConfig } from './config.ts';
import type { Fields } from './fields.ts';
import { SIGN_METHOD_RSA_SHA256, VERSION } from './message.ts';
import { signFields } from './signature.ts';

/** The merchant side of a request: the fields every request carries, signed with the merchant key. */
type Credentials = { certId: string; privateKey: KeyObject };

/** certId is the signing certificate's serial number in decimal (UnionPay's SDKs: BigInteger.toString()). */
function credentialsOf(config: ChannelCConfig): Credentials {
  const serialHex = new X509Certificate(config.signCertPem).serialNumber;
  return { certId: BigInt(`0x${serialHex}`).toString(10), privateKey: createPrivateKey(config.signKeyPem) };
}

export function signedRequest(config: ChannelCConfig, fields: Fields): Fields {
  const { certId, privateKey } = credentialsOf(config);
  const all: Fields = {
    version: VERSION,
    encoding: 'UTF-8',
    signMethod: SIGN_METHOD_RSA_SHA256,
    certId,
    merId: config.merId,
    accessType: '0',
    ...fields,
  };
  // Empty fields are not sent (and so not signed): UnionPay's own SDKs filter them the same way.
  const sent = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== ''));
  return { ...sent, signature: signFields(sent, privateKey) };
}
