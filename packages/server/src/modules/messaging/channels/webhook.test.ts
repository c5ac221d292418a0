import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature } from '../../../platform/egress/signing.ts';
import { webhookSecrets, webhookSigningSecret } from './webhook.ts';

const webhookSignature = (ctx: Parameters<typeof webhookSecrets>[0], tenantId: number, body: string, now: Date) =>
  signPayload(webhookSecrets(ctx, tenantId), body, now);

/** Signing-secret rotation: receivers keep verifying while SECRET_KEYS still lists the old key. */
const key = (id: string) => ({ id, key: randomBytes(32) });

describe('notification webhook signatures across a SECRET_KEYS rotation', () => {
  const oldKey = key('k1');
  const newKey = key('k2');
  const before = { config: { secretKeys: [oldKey] } };
  const during = { config: { secretKeys: [newKey, oldKey] } };
  const after = { config: { secretKeys: [newKey] } };
  const body = '{"event":"ops.monitor.alert"}';
  const now = new Date('2026-03-01T08:00:00Z');

  it('verifies with the old and the new secret while both keys are listed, then with the new only', () => {
    const oldSecret = webhookSigningSecret(before, 4);
    const newSecret = webhookSigningSecret(during, 4);
    expect(newSecret).not.toBe(oldSecret);
    expect(webhookSigningSecret(after, 4)).toBe(newSecret);

    const rotating = webhookSignature(during, 4, body, now);
    expect(rotating).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(oldSecret, rotating, body, now)).toBe(true);
    expect(verifySignature(newSecret, rotating, body, now)).toBe(true);

    const rotated = webhookSignature(after, 4, body, now);
    expect(verifySignature(newSecret, rotated, body, now)).toBe(true);
    expect(verifySignature(oldSecret, rotated, body, now)).toBe(false);
  });

  it('never verifies with another tenant’s secret', () => {
    const header = webhookSignature(during, 4, body, now);
    expect(verifySignature(webhookSigningSecret(during, 5), header, body, now)).toBe(false);
    expect(verifySignature(webhookSigningSecret(during, null), header, body, now)).toBe(false);
  });
});
