import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { License } from '../auth/license.ts';
import type { Scope } from '../auth/principal.ts';
import type { Cache } from '../cache/cache.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { AppAuthResolver, AuthResolver } from './authentication.ts';
import { registerBodyParsers } from './body-parsers.ts';
import { undocumentedAnswer } from './documented-answers.ts';
import { handleClientError, handleError, handleFrameworkError } from './error-handler.ts';
import { httpErrors, OAuthErrorBody } from './errors.ts';
import { checkMediaType, checkText } from './request-checks.ts';
import { requestGate } from './request-gate.ts';
import { requestIdOf } from './request-id.ts';
import { MAX_PARAM_LENGTH, type RouteConfig } from './route.ts';
import { lazySchemaCompilers } from './schema-compilers.ts';
import { ErrorBody } from './schemas.ts';

declare module 'fastify' {
  interface FastifyRequest {
    scope: Scope;
    /** the exact request body, on routes declaring `rawBody` */
    rawBody?: Buffer;
  }
  interface FastifyContextConfig extends Partial<RouteConfig> {}
}

export type HttpServerOptions = {
  config: Pick<Config, 'trustProxy' | 'bodyLimitBytes'>;
  logger: FastifyBaseLogger;
  metrics: Metrics;
  license: License;
  resolveAuth: AuthResolver;
  resolveAppAuth: AppAuthResolver;
  /** rate-limit counters (route `rateLimit`) */
  cache: Pick<Cache, 'rateCount'>;
  /**
   * Answers a request no route matched (the console's pages and files) and returns the operation
   * name its metrics carry, or null to let the 404 answer.
   */
  pages?: (req: FastifyRequest, reply: FastifyReply) => Promise<string | null>;
  /** Tests only: told of every answer whose status or media type the route's document does not declare. */
  onUndocumentedAnswer?: (answer: UndocumentedAnswer) => void;
};

export type UndocumentedAnswer = { operation: string; method: string; url: string; problem: string };

/**
 * The Fastify instance every module registers its routes on, with what route() relies on: the
 * request id, the schema compilers, the body parsers, the onRequest gate (licence, rate limits,
 * credentials), the checks before validation, metrics and the error handlers.
 */
export function createHttpServer(opts: HttpServerOptions): FastifyInstance {
  const compilers = lazySchemaCompilers();
  const app = Fastify({
    schemaController: { compilersFactory: { buildSerializer: compilers.buildSerializer } },
    loggerInstance: opts.logger,
    trustProxy: opts.config.trustProxy,
    bodyLimit: opts.config.bodyLimitBytes,
    // A caller's request id is kept (tracing across services) when it looks like one.
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
    // unsubscribe tokens and other signed path values run to 2,000 characters (default 100)
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  });
  app.addSchema(ErrorBody);
  app.addSchema(OAuthErrorBody);
  app.setValidatorCompiler(compilers.validatorCompiler);
  compilers.attach(app);
  registerBodyParsers(app);
  app.decorateRequest('scope', null as unknown as Scope);

  const gate = requestGate(opts);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    req.scope = { tenantId: null, principal: null, requestId: req.id, ip: req.ip };
    await gate(req);
  });

  // Before schema validation: the media type the route declares, and text no column can hold.
  app.addHook('preValidation', async (req) => {
    const cfg = req.routeOptions.config;
    if (cfg.consumes) checkMediaType(req, cfg.consumes);
    checkText(req);
  });

  const pageOperations = new WeakMap<FastifyRequest, string>();
  app.addHook('onResponse', async (req, reply) => {
    const answers = req.routeOptions.config.answers;
    const operation = req.routeOptions.config.operation ?? pageOperations.get(req) ?? 'unmatched';
    opts.metrics.observeRequest(operation, req.method, reply.statusCode, reply.elapsedTime / 1000);
    if (answers && opts.onUndocumentedAnswer) {
      const problem = undocumentedAnswer(answers, reply.statusCode, reply.getHeader('content-type'));
      if (problem) opts.onUndocumentedAnswer({ operation, method: req.method, url: req.url, problem });
    }
  });

  app.setNotFoundHandler(async (req, reply) => {
    const page = await opts.pages?.(req, reply);
    if (page) {
      pageOperations.set(req, page);
      return reply;
    }
    throw httpErrors.routeNotFound(req.method, req.url.split('?')[0] ?? req.url);
  });

  app.setErrorHandler(handleError);

  return app;
}
