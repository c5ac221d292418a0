import type { FastifyInstance, FastifyRequest } from 'fastify';
import { userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { databaseUnavailable } from '../../platform/db/unavailable.ts';
import { loggable } from '../../platform/http/error-handler.ts';
import { AppError } from '../../platform/http/errors.ts';
import { insertLog } from './operation-log-repository.ts';

/**
 * The operation log (audit): one row per request to a route declared `audit` (by default every
 * non-GET user route) made by a signed-in user, successful or not. It is written after the
 * response and a failure to write never fails the request; it is logged instead.
 */
export function recordOperations(app: FastifyInstance, ctx: AppContext) {
  const errorKeys = new WeakMap<FastifyRequest, string>();
  const pending = new Set<Promise<void>>();

  // The error as thrown, before the error handler turns it into the response body.
  app.addHook('onError', async (req, _reply, err) => {
    if (err instanceof AppError) errorKeys.set(req, err.key);
    else if ((err as { validation?: unknown }).validation) errorKeys.set(req, 'request.validation_failed');
  });

  app.addHook('onResponse', async (req, reply) => {
    const cfg = req.routeOptions.config;
    // req.scope is null when the request failed before the first hook (a malformed URL).
    const user = req.scope ? userOf(req.scope) : null;
    if (!cfg.audit || !cfg.operation || !user) return;
    const write = insertLog(ctx.db, req.scope, {
      userId: user.userId,
      username: user.username,
      module: cfg.operation.split('.')[0] ?? cfg.operation,
      operation: cfg.operation,
      method: req.method,
      path: req.url.split('?')[0] ?? req.url,
      statusCode: reply.statusCode,
      errorKey: errorKeys.get(req) ?? null,
      ip: req.ip,
      userAgent: (req.headers['user-agent'] ?? '').slice(0, 512),
      durationMs: Math.round(reply.elapsedTime),
      requestId: req.id,
      createdAt: ctx.clock(),
    }).catch((err: unknown) =>
      // the row's values (username, IP, path) stay out of the log, as in every logged error
      databaseUnavailable(err)
        ? req.log.warn('operation log not written: the database cannot be reached')
        : req.log.error({ err: loggable(err) }, 'operation log write failed'),
    );
    pending.add(write);
    await write;
    pending.delete(write);
  });

  // Writes still running when the app closes finish before the database goes.
  app.addHook('onClose', async () => {
    await Promise.all(pending);
  });

  return {
    /** Resolves when every log write started so far has finished (tests, shutdown). */
    async idle(): Promise<void> {
      await Promise.all(pending);
    },
  };
}
