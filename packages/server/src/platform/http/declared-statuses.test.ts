import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { type Declaration, errorStatusesOf } from './declared-statuses.ts';

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 10 }) });
const Body = Type.Object({ name: Type.String({ maxLength: 10 }) });
const declared = (def: Partial<Declaration>) =>
  errorStatusesOf({ method: 'GET', auth: 'public', schema: {}, ...def } as Declaration);

describe('errorStatusesOf: the error statuses a route can answer, from its declaration', () => {
  it('a public read of nothing in particular: only a failure and a store that is down', () => {
    expect(declared({})).toEqual([500, 503]);
    expect(declared({ stateless: true })).toEqual([500]);
  });

  it('credentials: 401 for user and app routes, 403 only with something to refuse', () => {
    // a signed-in caller may name a tenant that does not exist (X-Tenant-Id): a 400
    expect(declared({ auth: 'user' })).toEqual([400, 401, 500, 503]);
    expect(declared({ auth: 'user', permission: 'system:user:list' })).toEqual([400, 401, 403, 500, 503]);
    expect(declared({ auth: 'optional' })).toEqual([400, 500, 503]);
    expect(declared({ auth: 'app' })).toEqual([401, 500, 503]);
    expect(declared({ auth: 'app', scopes: ['drive:read'] })).toEqual([401, 403, 500, 503]);
    expect(declared({ feature: 'drive' })).toEqual([403, 500, 503]);
  });

  it('a path parameter: 400 for a bad value, 404 unless its values are a closed list', () => {
    expect(declared({ schema: { params: IdParams } })).toEqual([400, 404, 500, 503]);
    const Channel = Type.Object({ channel: Type.Union([Type.Literal('a'), Type.Literal('b')]) });
    expect(declared({ schema: { params: Channel } })).toEqual([400, 500, 503]);
    expect(declared({ schema: { querystring: Type.Object({}) } })).toEqual([400, 500, 503]);
  });

  it('a write: a body (malformed, too large, another media type) and a concurrent write, even without a body schema', () => {
    const write = [400, 409, 413, 415, 500, 503];
    expect(declared({ method: 'POST', schema: { body: Body } })).toEqual(write);
    expect(declared({ method: 'DELETE' })).toEqual(write);
    // a credential cookie on a write needs the script header (decision 0032); a read does not
    expect(declared({ method: 'POST', cookies: { reads: { rt: 'refresh token' } } })).toEqual([...write, 403].sort());
    expect(declared({ cookies: { reads: { rt: 'refresh token' } } })).toEqual([500, 503]);
  });

  it('a rate limit answers 429; what the handler raises is added as declared', () => {
    expect(declared({ rateLimit: { key: 'ip', max: 1, windowSeconds: 1 } })).toEqual([429, 500, 503]);
    expect(declared({ method: 'POST', errors: [404, 409] })).toEqual([400, 404, 409, 413, 415, 500, 503]);
    expect(declared({ errors: [401, 429] })).toEqual([401, 429, 500, 503]);
  });
});
