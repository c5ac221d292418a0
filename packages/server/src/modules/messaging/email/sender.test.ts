import { describe, expect, it } from 'vitest';
import { retryableSend } from './sender.ts';

/** Which failed sends wait for another attempt: only those that cannot have delivered the mail. */
describe('retryableSend', () => {
  const err = (fields: Record<string, unknown>) => Object.assign(new Error('failed'), fields);

  it('retries a server that could not be reached or greeted', () => {
    expect(retryableSend(err({ code: 'ESOCKET', command: 'CONN' }))).toBe(true);
    expect(retryableSend(err({ code: 'ECONNECTION', command: 'CONN' }))).toBe(true);
    expect(retryableSend(err({ code: 'ETIMEDOUT', command: 'CONN' }))).toBe(true);
    expect(retryableSend(err({ code: 'EDNS' }))).toBe(true);
  });

  it('retries what the server calls transient (4yz, RFC 5321 §4.2.1), not what it refuses (5yz)', () => {
    expect(retryableSend(err({ code: 'EENVELOPE', responseCode: 451, command: 'RCPT TO' }))).toBe(true);
    expect(retryableSend(err({ code: 'EMESSAGE', responseCode: 421, command: 'DATA' }))).toBe(true);
    expect(retryableSend(err({ code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' }))).toBe(false);
    expect(retryableSend(err({ code: 'EAUTH', responseCode: 535, command: 'AUTH PLAIN' }))).toBe(false);
  });

  it('does not retry a connection lost while the message went out (it may have arrived)', () => {
    expect(retryableSend(err({ code: 'ETIMEDOUT', command: 'DATA' }))).toBe(false);
    expect(retryableSend(err({ code: 'ESOCKET', command: 'DATA' }))).toBe(false);
    expect(retryableSend(new Error('anything else'))).toBe(false);
  });
});
