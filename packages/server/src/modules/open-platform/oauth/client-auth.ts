import type { FastifyRequest } from 'fastify';
import { oauthError } from '../../../platform/http/errors.ts';
import type { ClientCache } from '../apps/client-cache.ts';
import type { ClientRecord } from '../apps/client-repository.ts';
import { digestMatches, hashSecret } from '../apps/secrets.ts';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/**
 * An authenticated client. `proof` is the SHA-256 of the secret it presented (null for a public
 * client), for statements that re-check it against the application's row as it is now.
 */
export type AuthenticatedClient = { client: ClientRecord; method: ClientAuthMethod; proof: string | null };

/**
 * Where the client record comes from. `cache`: the per-instance cache, for work whose own
 * statement re-checks the application (a refusal is checked against the database, since the
 * cached record may predate a new secret or a re-enabling). `database`: read afresh.
 */
export type ClientSource = 'cache' | 'database';

/** Public description, identical for every failure so nothing tells which part was wrong. */
const FAILED = 'client authentication failed';

/**
 * Authenticates the client of a token, revocation or introspection request.
 * RFC 6749 §2.3.1: client_secret_basic (Authorization: Basic, each part form-urlencoded) or
 * client_secret_post (client_id + client_secret in the body); RFC 6749 §2.3: never both.
 * Public clients send only client_id (method `none`) and must not send a secret.
 */
export async function authenticateClient(
  clients: Pick<ClientCache, 'get' | 'reload'>,
  source: ClientSource,
  req: Pick<FastifyRequest, 'headers'> & { body: { client_id?: string; client_secret?: string } },
  now: Date,
): Promise<AuthenticatedClient> {
  const basic = parseBasic(req.headers.authorization);
  const { client_id: bodyId, client_secret: bodySecret } = req.body;
  if (basic && bodySecret !== undefined) {
    throw oauthError('invalid_request', 'use one client authentication method, not both Basic and client_secret');
  }
  if (basic && bodyId !== undefined && bodyId !== basic.id) {
    throw oauthError('invalid_request', 'client_id does not match the Basic credentials');
  }
  const clientId = basic?.id ?? bodyId;
  if (clientId === undefined || clientId === '') throw oauthError('invalid_client', 'client_id is required');
  const secret = basic?.secret ?? bodySecret;
  const method: ClientAuthMethod = basic ? 'client_secret_basic' : secret !== undefined ? 'client_secret_post' : 'none';

  const proof = secret === undefined ? null : hashSecret(secret);

  const verify = (client: ClientRecord | null): AuthenticatedClient | null => {
    if (client?.status !== 'active') return null;
    if (client.clientType === 'public') {
      if (method !== 'none') throw oauthError('invalid_client', 'a public client must not send a client secret');
      return { client, method, proof: null };
    }
    return proof !== null && digestMatches(client, proof, now) ? { client, method, proof } : null;
  };
  const authenticated =
    (source === 'cache' ? verify(await clients.get(clientId)) : null) ?? verify(await clients.reload(clientId));
  if (!authenticated) throw oauthError('invalid_client', FAILED);
  return authenticated;
}

/** The refusal of a client whose credentials stopped being valid while it was being served. */
export const clientRefused = () => oauthError('invalid_client', FAILED);

/** RFC 6749 §2.3.1 / RFC 7617: `Basic base64(urlencode(id):urlencode(secret))`. */
function parseBasic(header: string | undefined): { id: string; secret: string } | null {
  if (!header || !/^Basic\s/i.test(header)) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m?.[1]) throw oauthError('invalid_client', 'malformed Basic authorization header');
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw oauthError('invalid_client', 'malformed Basic authorization header');
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    throw oauthError('invalid_client', 'malformed Basic authorization header');
  }
}
