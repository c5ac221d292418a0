import { pipeline, type Readable, Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpErrors } from './errors.ts';
import { type MediaType, mediaTypeOf } from './request-checks.ts';

/**
 * Bodies are JSON (Fastify's parser), forms, XML, or what a route's own plugin parses (multipart,
 * octet-stream). text/plain would reach JSON routes as a string and be refused as the wrong type,
 * not a 415, so it has no parser.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  // HTML forms and protocol endpoints (RFC 8058 one-click unsubscribe, OAuth token requests,
  // payment notifications) post application/x-www-form-urlencoded: one string per name; a
  // repeated name becomes an array, which a string schema then rejects (RFC 6749 §3.2:
  // parameters must not repeat). Own properties only: a field named `constructor` or `toString`
  // must not pick up Object.prototype's, and `__proto__` is dropped rather than set as the prototype.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(body as string)) {
      if (name === '__proto__') continue;
      const seen = Object.hasOwn(out, name) ? out[name] : undefined;
      out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
    done(null, out);
  });
  // Payment channels post XML: the body is the text, for the route to read. Only routes whose
  // `consumes` lists the type take it; any other refuses it with 415 before reading it.
  app.addContentTypeParser([...TEXT_BODIES], { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.addHook('preParsing', async (req, _reply, payload) => {
    const type = mediaTypeOf(req.headers['content-type']) as MediaType;
    const { operation, consumes } = req.routeOptions.config;
    if (operation && TEXT_BODIES.includes(type) && !consumes?.includes(type)) {
      throw httpErrors.unsupportedMediaType(consumes);
    }
    return payload;
  });
}

/** Media types whose body reaches the handler as a string. */
export const TEXT_BODIES: readonly MediaType[] = ['application/xml', 'text/xml'];

/**
 * Route `rawBody`: a route-level preParsing hook that passes the body on to the usual parser
 * unchanged, keeping its exact bytes as `req.rawBody` (signatures are computed over the bytes
 * sent, not over a re-serialized parse). The parser still enforces the body limit.
 */
export async function captureRawBody(req: FastifyRequest, _reply: unknown, payload: Readable): Promise<Readable> {
  const chunks: Buffer[] = [];
  const limit = req.routeOptions.bodyLimit;
  let size = 0;
  const tee = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      // past the limit the parser refuses the body (413) and the rest drains: keep none of it
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      done(null, chunk);
    },
    flush(done) {
      if (size <= limit) req.rawBody = Buffer.concat(chunks);
      done();
    },
  });
  // an aborted or failed upload fails the parser's read as it would without the tee
  pipeline(payload, tee, () => {});
  return tee;
}
