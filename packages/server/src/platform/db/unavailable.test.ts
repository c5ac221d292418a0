import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { databaseUnavailable } from './unavailable.ts';

const socketError = (code: string) => Object.assign(new Error(`write ${code}`), { code });

describe('a database that went away under a request', () => {
  it('is a socket error under a query (the connection died between two queries)', () => {
    expect(databaseUnavailable(new DrizzleQueryError('select 1', [], socketError('EPIPE')))).toBe(true);
    expect(databaseUnavailable(new DrizzleQueryError('select 1', [], socketError('ECONNRESET')))).toBe(true);
  });

  it('is not a bare socket error (any dependency may raise it), nor a query the server refused', () => {
    expect(databaseUnavailable(socketError('EPIPE'))).toBe(false);
    const refused = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(databaseUnavailable(new DrizzleQueryError('insert', [], refused))).toBe(false);
  });

  it('is a connection the server ended (SQLSTATE 57P01) however deep Drizzle wraps it', () => {
    const ended = Object.assign(new Error('terminating connection'), { code: '57P01' });
    expect(databaseUnavailable(new DrizzleQueryError('select 1', [], ended))).toBe(true);
  });
});
