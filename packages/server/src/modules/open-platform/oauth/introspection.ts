import type { FastifyRequest } from 'fastify';
import { oauthError } from '../../../platform/http/errors.ts';
import { type AuthenticatedClient, authenticateClient, clientRefused } from './client-auth.ts';
import type { OAuthDeps } from './deps.ts';

export type Introspection =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      token_type: 'Bearer' | 'refresh_token';
      exp: number;
      iat: number;
      iss: string;
      sub?: string;
      username?: string;
      tenant_id: number | null;
    };

/**
 * RFC 7662. The caller authenticates as a confidential client (§2.1: the endpoint must be
 * protected); it learns about tokens of its own tenant only, anything else is `active: false`
 * (§2.2: no reason is given for an inactive token). The caller's cached record is confirmed by the
 * lookup's own statement; if the application changed meanwhile, it is read again once.
 */
export async function introspect(
  deps: OAuthDeps,
  req: FastifyRequest & { body: { token?: string; client_id?: string; client_secret?: string } },
): Promise<Introspection> {
  const now = deps.clock();
  const lookup = async (auth: AuthenticatedClient) => {
    if (auth.client.clientType !== 'confidential' || auth.proof === null) {
      throw oauthError('invalid_client', 'introspection needs a confidential client');
    }
    if (!req.body.token) throw oauthError('invalid_request', 'token is required');
    const found = await deps.tokens.introspect(auth.client.id, auth.proof, req.body.token, now);
    return found && { client: auth.client, live: found.token };
  };
  const result =
    (await lookup(await authenticateClient(deps.clients, 'cache', req, now))) ??
    (await lookup(await authenticateClient(deps.clients, 'database', req, now)));
  if (!result) throw clientRefused();
  const { client, live } = result;
  if (!live || live.token.tenantId !== client.tenantId) return { active: false };
  const t = live.token;
  const user = t.userId === null ? null : await deps.user(t.userId);
  if (t.userId !== null && !user?.active) return { active: false };
  const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
  return {
    active: true,
    scope: t.scopes.join(' '),
    client_id: live.clientId,
    token_type: t.kind === 'access' ? 'Bearer' : 'refresh_token',
    exp: seconds(t.expiresAt),
    iat: seconds(t.createdAt),
    iss: deps.issuer,
    ...(user ? { sub: String(user.id), username: user.username } : {}),
    tenant_id: t.tenantId,
  };
}
