import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, sha256 } from './digest.ts';
import { createSecretBox, parseSecretKeys, SecretError } from './secrets.ts';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('secret box (AES-256-GCM with key ids)', () => {
  it('round-trips and never stores the plain text', () => {
    const box = createSecretBox([key('k1')]);
    const stored = box.encrypt('smtp-password-ü', 'email_configs.password:1');
    expect(stored).toMatch(/^v1\.k1\./);
    expect(stored).not.toContain('smtp-password');
    expect(box.decrypt(stored, 'email_configs.password:1')).toBe('smtp-password-ü');
    expect(box.encrypt('same', 'c')).not.toBe(box.encrypt('same', 'c')); // fresh IV each time
  });

  it('rotates: values under the old key still decrypt and are flagged for re-encryption', () => {
    const k1 = key('k1');
    const old = createSecretBox([k1]).encrypt('secret', 'ctx');
    const rotated = createSecretBox([key('k2'), k1]);
    expect(rotated.decrypt(old, 'ctx')).toBe('secret');
    expect(rotated.needsRotation(old)).toBe(true);
    expect(rotated.needsRotation(rotated.encrypt('secret', 'ctx'))).toBe(false);
  });

  it('refuses a tampered value, another context, or an unknown key id', () => {
    const box = createSecretBox([key('k1')]);
    const stored = box.encrypt('secret', 'row:1');
    const parts = stored.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => box.decrypt(parts.join('.'), 'row:1')).toThrow(SecretError);
    expect(() => box.decrypt(stored, 'row:2')).toThrow(SecretError);
    expect(() => createSecretBox([key('other')]).decrypt(stored, 'row:1')).toThrow(/no secret key "k1"/);
    expect(() => box.decrypt('plain-text', 'row:1')).toThrow(SecretError);
  });

  it('parses SECRET_KEYS and rejects keys of the wrong size', () => {
    const raw = `new:${randomBytes(32).toString('base64')},old:${randomBytes(32).toString('base64')}`;
    expect(parseSecretKeys(raw).map((k) => k.id)).toEqual(['new', 'old']);
    expect(() => createSecretBox([{ id: 'short', key: randomBytes(16) }])).toThrow(/32 bytes/);
  });
});

describe('digests and comparisons', () => {
  it('sha256 is hex and stable; constant-time compare handles different lengths', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});
