import { createHash } from 'node:crypto';
import type { ErrorType } from '../tables.ts';
import { formatFrame, scriptFile, topFrame } from './stack.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const HEX_ADDRESS = /0x[0-9a-f]+/gi;
const DIGITS = /[0-9]+/g;

/**
 * Spec §2.5: normalisation erases UUIDs, hexadecimal addresses and digits, so "order 41 failed"
 * and "order 42 failed" are one issue. UUIDs and hex go first: erasing digits first would leave
 * their letters behind and split issues by them.
 */
export function normalizeMessage(message: string): string {
  return message.replace(UUID, '').replace(HEX_ADDRESS, '').replace(DIGITS, '').trim();
}

export type FingerprintInput = {
  tenantId: number | null;
  environment: string;
  type: ErrorType;
  message: string;
  stack: string;
  sourceUrl: string;
};

export type Fingerprint = { fingerprint: string; normalizedMessage: string; topFrame: string; sourceFile: string };

/**
 * Spec §2.5: hash of tenantId + environment + type + normalized message + top stack frame + source
 * file. The top frame and its script come from the stack; a report without one (resource_error,
 * http_error, white_screen) falls back to its sourceUrl. The parts are hashed as a JSON array so
 * no separator inside a message can make two different reports collide.
 */
export function fingerprintOf(r: FingerprintInput): Fingerprint {
  const frame = r.stack ? topFrame(r.stack) : null;
  const top = frame ? formatFrame(frame) : '';
  const sourceFile = scriptFile(frame?.file ?? r.sourceUrl);
  const normalizedMessage = normalizeMessage(r.message);
  const parts = [r.tenantId, r.environment, r.type, normalizedMessage, top, sourceFile];
  const fingerprint = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  return { fingerprint, normalizedMessage, topFrame: top, sourceFile };
}
