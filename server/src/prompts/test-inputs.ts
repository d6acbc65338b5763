// The values a prompt test renders with, by the rules a real call applies (gateway/prompt-calls.ts's
// validate step): every {{variable}} is a declared input (declareTemplateVariables), the inputs are
// checked against the schema (a required input left blank is refused, as a call refuses it), and an
// optional input left blank takes its default, else an empty value (withOptionalInputs).
import { declareTemplateVariables, detectVariables, type IoSchema, setOwn } from '@tollbooth/contract';
import type { ValidateFunction } from 'ajv';
import { withOptionalInputs } from '../platform/call-rules.ts';
import { linearRegExp } from '../platform/safe-regex.ts';
import { createAjv, describeSchemaError } from '../platform/validation.ts';

export interface FilledTestInputs {
  inputs: Record<string, unknown>;
  /** Variables that took the schema's default. */
  defaulted: string[];
  /** Variables rendered empty: no test value and no default. */
  emptied: string[];
  /** Why a real call would refuse these inputs ("inputs.topic: is required"), or null. */
  refusal: string | null;
}

const EMPTY_SCHEMA: IoSchema = { type: 'object', properties: {} };
// The gateway's options: no coercion, own properties only, patterns on a linear-time engine.
const inputValidator = createAjv({ coerceTypes: false, ownProperties: true, code: { regExp: linearRegExp } });

const isBlank = (value: unknown) => value === undefined || value === null || value === '';

/** The schema a call to this template is checked against: the saved one plus every undeclared variable. */
export function effectiveInputSchema(template: string, schema: IoSchema | null): IoSchema {
  return declareTemplateVariables(template, schema ?? EMPTY_SCHEMA);
}

export function fillTestInputs(template: string, given: Record<string, unknown>, schema: IoSchema | null): FilledTestInputs {
  const effective = effectiveInputSchema(template, schema);
  // Own properties only: {{constructor}} must not find Object.prototype's. A blank test value is a left-out input.
  const inputs: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) if (!isBlank(value)) setOwn(inputs, name, value);
  let refusal: string | null = null;
  let validate: ValidateFunction | null = null;
  try {
    validate = inputValidator.compile(effective);
  } catch (error) {
    refusal = `input_schema: cannot be used: ${(error as Error).message}`;
  }
  // A copy: the validator fills in defaults, and the defaults are told apart below.
  if (validate && !validate({ ...inputs })) {
    const first = validate.errors?.[0];
    const { path, message } = first ? describeSchemaError(first, 'is not a known input') : { path: [], message: 'is invalid' };
    refusal = `${['inputs', ...path].join('.')}: ${message}`;
  }
  // Each test compiles its own schema: let Ajv forget it, so tests do not grow its cache.
  inputValidator.removeSchema(effective);
  const filled = withOptionalInputs(effective, inputs);
  const defaulted: string[] = [];
  const emptied: string[] = [];
  for (const name of detectVariables(template)) {
    if (Object.hasOwn(inputs, name)) continue;
    if (Object.hasOwn(filled, name) && filled[name] === '') emptied.push(name);
    else if (Object.hasOwn(filled, name)) defaulted.push(name);
  }
  const own: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(filled)) own[name] = value;
  return { inputs: own, defaulted, emptied, refusal };
}

/** "Template rendered successfully", naming the variables that took a default or rendered empty. */
export function renderedMessage({ defaulted, emptied }: FilledTestInputs): string {
  const list = (names: string[]) => names.map((name) => `{{${name}}}`).join(', ');
  const notes = [
    ...(defaulted.length > 0 ? [`the schema default for ${list(defaulted)}`] : []),
    ...(emptied.length > 0 ? [`an empty value for ${list(emptied)}`] : []),
  ];
  return notes.length > 0 ? `Template rendered successfully, using ${notes.join(' and ')}` : 'Template rendered successfully';
}
