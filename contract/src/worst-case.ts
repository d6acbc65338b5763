// The bound a prompt call's model cost is reserved by, once for server and web (issue 61, trap 2):
// the gateway's inputs limit and its tokens-from-bytes bound (server/src/gateway/prompt-calls.ts
// modelCostBound), and the worst case of one call of a prompt that the builder shows at every step
// (server/src/prompts/cost-estimate.ts answers it with the model's prices). The variables are read
// as the gateway validates them: every {{variable}} declared (declareTemplateVariables), so one the
// schema leaves out counts at its automatic maxLength, not as unbounded.
//
// The worst case is a bound, never an estimate: no tokenizer makes more tokens than UTF-8 bytes, so
// the input tokens are at most the prompt's bytes with each variable at its most bytes (a string's
// maxLength characters of up to 4 bytes each, a number's or boolean's longest JSON, an enum's
// longest value), all variables together within the gateway's 64 KiB of JSON inputs (at most 3 UTF-8
// bytes per JSON character). See docs/decisions/0033-operator-view-and-margins.md and 0111.
import type { IoSchema } from './prompts.ts';
import { declareTemplateVariables, TEMPLATE_VARIABLE } from './template.ts';

/** The gateway's limit on a call's inputs, in characters of JSON. */
export const MAX_INPUTS_CHARACTERS = 64 * 1024;
/** UTF-8 bytes per JSON character at most (a UTF-16 unit of the JSON text is at most 3 bytes). */
const BYTES_PER_JSON_CHARACTER = 3;
/** UTF-8 bytes per character of a string (a code point, as maxLength counts them). */
const BYTES_PER_CHARACTER = 4;
/** The longest JSON of a number (-1.7976931348623157e+308) and of a boolean. */
const NUMBER_BYTES = 24;
const BOOLEAN_BYTES = 5;

/**
 * Input tokens a provider may bill for an image (OpenAI's high-detail tiles, Claude's and Gemini's
 * image tokens stay below this), used only for the worst case.
 */
export const IMAGE_TOKENS_BOUND = 1_600;

/**
 * The most a prompt of `utf8Bytes` UTF-8 bytes can be in any provider's tokens: no tokenizer makes
 * more tokens than bytes. Cheap, so the gateway can tell without a tokenizer that a call's price
 * covers its worst case; the messages' overhead is the 16.
 */
export const inputTokensBound = (utf8Bytes: number, images = 0) => utf8Bytes + images * IMAGE_TOKENS_BOUND + 16;

const encoder = new TextEncoder();
export const utf8Bytes = (text: string) => encoder.encode(text).length;

/** The most UTF-8 bytes one variable's value can render to, or Infinity when only the inputs limit bounds it. */
function variableBytesBound(property: IoSchema['properties'][string] | undefined): number {
  if (!property) return Number.POSITIVE_INFINITY;
  if (Array.isArray(property.enum) && property.enum.length > 0) {
    return Math.max(...property.enum.map((value) => utf8Bytes(typeof value === 'string' ? value : JSON.stringify(value ?? null))));
  }
  if (property.type === 'number' || property.type === 'integer') return NUMBER_BYTES;
  if (property.type === 'boolean') return BOOLEAN_BYTES;
  if (property.type === 'string' && property.maxLength !== undefined) return property.maxLength * BYTES_PER_CHARACTER;
  return Number.POSITIVE_INFINITY;
}

export interface WorstCaseInput {
  tokens: number;
  /** Template variables that only the inputs limit bounds (strings without maxLength, arrays, objects). */
  unbounded: string[];
}

/** The most input tokens one completion call of this prompt can send, its variables declared as the gateway declares them. */
export function worstCaseInputTokens(systemPrompt: string, template: string, inputSchema: IoSchema | undefined): WorstCaseInput {
  const schema = declareTemplateVariables(template, inputSchema ?? { type: 'object', properties: {} });
  const occurrences = new Map<string, number>();
  for (const match of template.matchAll(TEMPLATE_VARIABLE)) occurrences.set(match[1]!, (occurrences.get(match[1]!) ?? 0) + 1);
  const fixedBytes = utf8Bytes(systemPrompt) + utf8Bytes(template.replace(TEMPLATE_VARIABLE, ''));
  // The values share one budget: fill the most repeated variables first, each up to its own bound.
  let budget = MAX_INPUTS_CHARACTERS * BYTES_PER_JSON_CHARACTER;
  let variableBytes = 0;
  const unbounded: string[] = [];
  const variables = [...occurrences].map(([name, count]) => ({ name, count, bound: variableBytesBound(schema.properties[name]) }));
  for (const { name, bound } of variables) if (bound === Number.POSITIVE_INFINITY) unbounded.push(name);
  variables.sort((a, b) => b.count - a.count);
  for (const { count, bound } of variables) {
    const bytes = Math.min(bound, budget);
    budget -= bytes;
    variableBytes += bytes * count;
  }
  return { tokens: inputTokensBound(fixedBytes + variableBytes), unbounded };
}
