import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from './deps.ts';
import { serverMetadata } from './discovery.ts';
import { introspect } from './introspection.ts';
import { revoke } from './revocation.ts';
import { type TokenRequestBody, tokenEndpoint } from './token-endpoint.ts';
import { userinfo } from './userinfo.ts';

type ClientRequest = FastifyRequest & { body: { token?: string; client_id?: string; client_secret?: string } };

/** The protocol endpoints (token, revocation, introspection, UserInfo, JWKS, metadata), built once with their deps. */
export function createProtocolService(deps: OAuthDeps & { consentUrl: string | null }) {
  return {
    token: (req: FastifyRequest & { body: TokenRequestBody }) => tokenEndpoint(deps, req),
    revoke: (req: ClientRequest) => revoke(deps, req),
    introspect: (req: ClientRequest) => introspect(deps, req),
    userinfo: (authorization: string | undefined, formToken?: unknown) => userinfo(deps, authorization, formToken),
    jwks: () => deps.keys.jwks(deps.clock()),
    metadata: () => serverMetadata(deps.issuer, deps.consentUrl, deps.scopes),
  };
}

export type ProtocolService = ReturnType<typeof createProtocolService>;
