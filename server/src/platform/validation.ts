// Request validation: bodies are checked strictly (a number is not a string, unknown fields are
// refused where the schema says so), while params, query strings and headers, which are always
// text on the wire, are coerced to the schema's types.
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/** The one Ajv setup: formats on, defaults applied, unknown keywords tolerated. Bodies and call inputs use coerceTypes: false. */
export function createAjv(options: Options = {}) {
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, allErrors: false, strict: false, ...options });
  addFormats.default(ajv);
  return ajv;
}

const strict = createAjv({ coerceTypes: false });
const coercing = createAjv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;

/** A schema violation as Ajv and Fastify report it. */
interface SchemaError {
  instancePath?: string;
  params?: unknown;
  message?: string;
}

/** Names the field of a schema violation (its path, with the missing or unknown property) and says what is wrong with it. */
export function describeSchemaError(error: SchemaError, unknownFieldMessage = 'is not a known field'): { path: string[]; message: string } {
  const params = (error.params as { missingProperty?: string; additionalProperty?: string } | undefined) ?? {};
  const path = (error.instancePath ?? '').split('/').filter(Boolean);
  if (params.missingProperty) path.push(params.missingProperty);
  if (params.additionalProperty) path.push(params.additionalProperty);
  const message = params.missingProperty ? 'is required' : params.additionalProperty ? unknownFieldMessage : (error.message ?? 'is invalid');
  return { path, message };
}
