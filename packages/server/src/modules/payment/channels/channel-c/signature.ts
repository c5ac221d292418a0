import { createHash, createSign, createVerify, type KeyObject } from 'node:crypto';
import { type Fields, signingString } from './fields.ts';

/**
 * signMethod=01 of full-channel 5.1.0: SHA256withRSA over the lowercase hex SHA-256 of the
 * signing string — the RSA signature covers the 64 hex characters, not the string itself.
 */
function digestHex(fields: Fields): string {
  return createHash('sha256').update(signingString(fields), 'utf8').digest('hex');
}

/** The base64 `signature` field for these fields, with the merchant's key. */
export function signFields(fields: Fields, privateKey: KeyObject): string {
  return createSign('sha256').update(digestHex(fields), 'utf8').sign(privateKey, 'base64');
}

export function verifyFields(fields: Fields, publicKey: KeyObject): boolean {
  const signature = fields.signature;
  if (!signature) return false;
  try {
    return createVerify('sha256').update(digestHex(fields), 'utf8').verify(publicKey, signature, 'base64');
  } catch {
    return false;
  }
}
