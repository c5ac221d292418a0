import { createRequire } from 'node:module';
import type { FastifySchemaValidationError } from 'fastify';

/**
 * Schema compilers that compile on first use. Fastify compiles a validator per request part and a
 * serializer per response status of every route (each GET twice, for its HEAD twin) at start:
 * thousands of generated functions, most of them (error statuses, HEAD, admin screens) never
 * called. Compiling them all was most of the start's heap, and V8 keeps the pages a heap once
 * grew to, so it stayed in the resident set. A schema mistake now surfaces on the route's first
 * request instead of at start; the input-fuzz and contract tests call every operation.
 */

/** An Ajv validate function as Fastify calls it: `(data, ctx)` then reads `.errors`. */
export type Validate = ((data: unknown, ctx?: object) => boolean) & {
  errors?: FastifySchemaValidationError[] | null;
  schemaEnv?: unknown;
};

export function lazyValidator(compile: () => Validate): Validate {
  let compiled: Validate | undefined;
  const validate: Validate = (data, ctx) => {
    compiled ??= compile();
    const valid = compiled(data, ctx);
    validate.errors = compiled.errors;
    return valid;
  };
  // Fastify hands the parent object (so a coerced root value is written back) only to functions
  // that look like Ajv's, which carry `schemaEnv`.
  validate.schemaEnv = true;
  return validate;
}

type Serialize = (data: unknown) => string;
type SerializerRoute = { schema?: unknown; method: string; url: string; httpStatus: string };
type SerializerFactory = (externalSchemas?: unknown, serializerOpts?: unknown) => (route: SerializerRoute) => Serialize;

/**
 * Fastify's own serializer factory (fast-json-stringify, with the shared schemas), each route's
 * serializer built on its first response. The compiler is Fastify's dependency, resolved from it.
 */
export function lazySerializerFactory(): SerializerFactory {
  const fromFastify = createRequire(import.meta.resolve('fastify'));
  const defaultFactory = fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerFactory;
  return (externalSchemas, serializerOpts) => {
    const compile = defaultFactory()(externalSchemas, serializerOpts);
    return (route) => {
      let serialize: Serialize | undefined;
      return (data) => {
        serialize ??= compile(route);
        return serialize(data);
      };
    };
  };
}
