import { randomUUID } from 'node:crypto';

/** What a caller's own `X-Request-Id` must look like to be kept (docs/api-conventions.md). */
const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** The caller's `X-Request-Id` when it looks like one, otherwise a fresh UUID. */
export function requestIdOf(given: unknown): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The `X-Request-Id` among the bytes Node refused before a request existed (431, 408, bytes that
 * are not HTTP): `err.rawPacket` of `clientError` holds the data being parsed when it failed.
 * Only the head is read, and only a header line that begins there; what is not found (a head
 * split over several reads may keep the header in an earlier one) gets a fresh id.
 */
export function requestIdInRawHead(raw: unknown): string {
  if (!Buffer.isBuffer(raw)) return randomUUID();
  // latin1: one character per byte, so nothing a client sends can make the scan throw
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const line = /(?:^|\r\n)x-request-id[ \t]*:[ \t]*([^\r\n]*)/i.exec(head);
  return requestIdOf(line?.[1]?.trim());
}
