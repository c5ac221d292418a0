import type { FastifyRequest } from 'fastify';
import type { License } from '../auth/license.ts';
import type { Cache } from '../cache/cache.ts';
import { type AppAuthResolver, type AuthResolver, authenticator } from './authentication.ts';
import { httpErrors } from './errors.ts';
import { rateLimiter } from './rate-limit.ts';

/**
 * The onRequest hook: what a route's declaration decides before its body is read, in this order:
 * the licence feature, an IP rate limit (a flood is refused before any token work), the
 * credentials of `auth`, then a rate limit keyed by the principal or the route's own key.
 */
export function requestGate(opts: {
  license: License;
  cache: Pick<Cache, 'rateCount'>;
  resolveAuth: AuthResolver;
  resolveAppAuth: AppAuthResolver;
}) {
  const authenticate = authenticator(opts.resolveAuth, opts.resolveAppAuth);
  const enforceRateLimit = rateLimiter(opts.cache);
  return async (req: FastifyRequest): Promise<void> => {
    const cfg = req.routeOptions.config;
    if (!cfg.operation) return; // unknown route: the not-found handler answers
    if (cfg.feature && !opts.license.enabled(cfg.feature)) throw httpErrors.featureDisabled(cfg.feature);
    const limit = cfg.rateLimit;
    if (limit?.key === 'ip') await enforceRateLimit(req, cfg.operation, limit);
    await authenticate(req, cfg);
    if (limit && limit.key !== 'ip') await enforceRateLimit(req, cfg.operation, limit);
  };
}
