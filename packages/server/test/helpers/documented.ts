import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/**
 * The document as a client reads it, and a check that an answer is what the document says:
 * its status is declared for the operation, its media type is one declared for that status (or
 * none, for an answer declared without a body), and the body validates against the schema
 * declared for that media type. The console's types are generated from this document; an answer
 * it does not describe is a call the console cannot type.
 */
export type OpenApiDoc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};
export type Operation = {
  operationId: string;
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }>; headers?: object }>;
};

export async function openApiDoc(app: FastifyInstance): Promise<OpenApiDoc> {
  const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(res.statusCode).toBe(200);
  return res.json();
}

export function operationOf(doc: OpenApiDoc, method: string, path: string): Operation {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path} is not in the document`);
  return op;
}

const validators = new WeakMap<OpenApiDoc, Ajv>();

/** A validator of one schema of the document, by JSON pointer; `$ref`s resolve inside the document. */
export function documentValidator(doc: OpenApiDoc, pointer: string) {
  let ajv = validators.get(doc);
  if (!ajv) {
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat('binary', true);
    ajv.addSchema({ ...doc, $id: 'openapi.json' });
    validators.set(doc, ajv);
  }
  const validate = ajv.getSchema(`openapi.json#${pointer}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  return validate;
}

const pointerSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Asserts the answer is one the document declares for `method path` (the documented path, `{id}` form). */
export function expectDocumented(
  doc: OpenApiDoc,
  method: string,
  path: string,
  res: Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body'>,
): void {
  const where = `${method} ${path} → ${res.statusCode}`;
  const declared = operationOf(doc, method, path).responses[String(res.statusCode)];
  expect(declared, `${where}: status not in the document`).toBeDefined();
  const type = String(res.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim();
  if (!declared?.content) {
    expect(res.body, `${where}: declared without a body`).toBe('');
    return;
  }
  const media = type ? declared.content[type] : undefined;
  expect(
    media,
    `${where}: ${type || 'no media type'} is not among ${Object.keys(declared.content).join(', ')}`,
  ).toBeDefined();
  const body = type === 'application/json' ? JSON.parse(res.body) : res.body;
  const pointer = [
    '',
    'paths',
    path,
    method.toLowerCase(),
    'responses',
    String(res.statusCode),
    'content',
    type,
    'schema',
  ]
    .map((s) => pointerSegment(s ?? ''))
    .join('/');
  const validate = documentValidator(doc, pointer);
  expect(validate(body) ? [] : validate.errors, `${where}: body against the document`).toEqual([]);
}
