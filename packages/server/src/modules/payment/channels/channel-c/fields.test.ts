import { describe, expect, it } from 'vitest';
import { parseAnswer, parseForm, signingString } from './fields.ts';
import { formatTxnTime, parseTxnTime } from './message.ts';

describe('channel_c message format', () => {
  it('an answer splits on & outside brackets only, at the first =, and keeps PEM newlines', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB+/a=\n-----END CERTIFICATE-----';
    expect(parseAnswer(`respCode=00&reqReserved={a=1&b=[x&y]}&signPubKeyCert=${pem}&empty=`)).toEqual({
      respCode: '00',
      reqReserved: '{a=1&b=[x&y]}',
      signPubKeyCert: pem,
      empty: '',
    });
    expect(parseAnswer('respCode=00&respCode=01')).toBeNull();
    expect(parseAnswer('<html>')).toBeNull();
  });

  it('a form with a repeated field is refused', () => {
    expect(parseForm('a=1&b=%2B')).toEqual({ a: '1', b: '+' });
    expect(parseForm('a=1&a=2')).toBeNull();
  });

  it('the signing string: sorted, without signature and empty fields', () => {
    expect(signingString({ b: '2', signature: 'x', a: '1', c: '' })).toBe('a=1&b=2');
  });

  it('txnTime is Beijing time, to the second', () => {
    expect(formatTxnTime(new Date('2026-12-31T16:30:15.999Z'))).toBe('20270101003015');
    expect(parseTxnTime('20270101003015')).toEqual(new Date('2026-12-31T16:30:15Z'));
    expect(parseTxnTime('2027010100301')).toBeNull();
  });
});
