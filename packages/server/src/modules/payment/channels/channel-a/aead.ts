import { createDecipheriv } from 'node:crypto';

/**
 * AEAD_AES_256_GCM as channel_a uses it for callback resources and downloaded certificates: the
 * APIv3 key, a 12-byte nonce given as text, the associated data as text (may be empty), and the
 * 16-byte tag at the end of the base64 ciphertext. `final()` throws when the tag does not match,
 * which is the whole point: a wrong key or an altered ciphertext must not decrypt.
 */
export type EncryptedResource = { algorithm: string; ciphertext: string; nonce: string; associated_data?: string };

const TAG_BYTES = 16;

export function decryptResource(resource: EncryptedResource, key: Buffer): string {
  if (resource.algorithm !== 'AEAD_AES_256_GCM') throw new Error(`unsupported algorithm ${resource.algorithm}`);
  const data = Buffer.from(resource.ciphertext, 'base64');
  if (data.length <= TAG_BYTES) throw new Error('ciphertext too short');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(resource.nonce, 'utf8'), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  decipher.setAAD(Buffer.from(resource.associated_data ?? '', 'utf8'));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString('utf8');
}
