import type { FastifyRequest } from 'fastify';
import { oauthError } from '../../../platform/http/errors.ts';
import { authenticateClient } from './client-auth.ts';
import type { OAuthDeps } from './deps.ts';
import { findToken, revokeFamily, revokeTokenById } from './token-repository.ts';

/**
 * RFC 7009. The client authenticates (public clients by client_id); a token of another client,
 * an unknown or an already dead token all answer `{}` alike (§2.2). Revoking a refresh token
 * revokes its whole grant, access tokens included (§2.1); an access token goes alone.
 */
export async function revoke(
  deps: OAuthDeps,
  req: FastifyRequest & { body: { token?: string; client_id?: string; client_secret?: string } },
): Promise<Record<string, never>> {
  const { db, clock } = deps;
  // revocation does not re-check the application in its statements: its record is read afresh
  const { client } = await authenticateClient(deps.clients, 'database', req, clock());
  if (!req.body.token) throw oauthError('invalid_request', 'token is required');
  const token = await findToken(db, req.body.token);
  if (token && token.appId === client.id) {
    const now = clock();
    if (token.kind === 'refresh' && token.familyId) await revokeFamily(db, token.familyId, now);
    else await revokeTokenById(db, token.id, now);
  }
  return {};
}
