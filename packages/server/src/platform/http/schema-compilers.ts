import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

type FastifyValidationResult = ReturnType<FastifySchemaCompiler<unknown>>;

/**
 * Validators and serializers compiled on first use. Compiling those of every route (about 270
 * routes, each with a validator per request part and a serializer per response status) was most
 * of the start-up time and of the memory of a service that has served nothing: a route compiles
 * what it uses when it is first called. `compileEverySchema` compiles them all at once, for the
 * test that proves every schema compiles.
 */
type Thunk = () => void;
const registries = new WeakMap<object, Thunk[]>();

/** `buildSerializer` goes to Fastify's `schemaController.compilersFactory`, `validatorCompiler` to `setValidatorCompiler`. */
export function lazySchemaCompilers() {
  const compileAll: Thunk[] = [];
  return {
    buildSerializer: lazySerializerFactory(compileAll),
    validatorCompiler: lazyValidatorCompiler(compileAll),
    attach(app: object) {
      registries.set(app, compileAll);
    },
  };
}

export function compileEverySchema(app: object): number {
  const all = registries.get(app) ?? [];
  for (const compile of all) compile();
  return all.length;
}

/**
 * Two validators: query strings, params and headers arrive as text, so their scalars are coerced
 * ("5" → 5); JSON bodies are typed already and are checked strictly, so `0` or `""` is never
 * quietly turned into `null` or a number. Every bad field is reported (allErrors).
 */
function lazyValidatorCompiler(compileAll: Thunk[]): FastifySchemaCompiler<unknown> {
  let ajvs: { strict: Ajv; coercing: Ajv } | null = null;
  const make = (coerceTypes: boolean | 'array') => {
    const ajv = new Ajv({ allErrors: true, coerceTypes, useDefaults: true, removeAdditional: false, strict: false });
    addFormats.default(ajv);
    return ajv;
  };
  return ({ schema, httpPart }) => {
    let validate: FastifyValidationResult | null = null;
    const compile = () => {
      ajvs ??= { strict: make(false), coercing: make('array') };
      validate ??= (httpPart === 'body' ? ajvs.strict : ajvs.coercing).compile(
        schema as object,
      ) as FastifyValidationResult;
      return validate;
    };
    compileAll.push(compile);
    // Fastify reads `.errors` from the function it was given after a failed validation, and
    // passes the parent object (so a coerced root value is written back) only to functions that
    // look like Ajv's, which carry `schemaEnv`.
    const lazy = ((data: unknown, ctx?: object) => {
      const v = compile() as (data: unknown, ctx?: object) => boolean;
      const ok = v(data, ctx);
      lazy.errors = (v as FastifyValidationResult).errors;
      return ok;
    }) as FastifyValidationResult & { schemaEnv?: unknown };
    lazy.schemaEnv = true;
    return lazy;
  };
}

/** Fastify's own serializer (fast-json-stringify, with the shared schemas), built when first needed. */
function lazySerializerFactory(compileAll: Thunk[]): SerializerSelector.SerializerFactory {
  const factory = SerializerSelector();
  return (externalSchemas, serializerOpts) => {
    const build = factory(externalSchemas, serializerOpts);
    return (route) => {
      let serialize: SerializerSelector.Serializer | null = null;
      const compile = () => {
        serialize ??= build(route);
        return serialize;
      };
      compileAll.push(compile);
      return (data) => compile()(data);
    };
  };
}
