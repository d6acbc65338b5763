// Dify Service API details the paid call path needs (see docs/decisions/0009): the app's mode
// checked the way Dify checks it, optional inputs rendered as Dify renders them, and Dify's price
// fields in usage (the gateway's answer is Dify's message). Pure functions, so the gateway's steps
// only call them. In platform/, below the features, because the gateway, the workflow call target,
// the OpenAI door and the prompt tests apply the same rules, and Dify's door (dify/) uses the gateway:
// kept in dify/, the folders would import each other.
import { type CallMode, type IoSchema, type RateCard, setOwn } from '@tollbooth/contract';
import { AppError } from './errors.ts';

/** The error type a call to the other mode's endpoint is recorded under (a caller's mistake, not "App not live"). */
export const WRONG_ROUTE = 'wrong_route';

/** Dify answers a call to the other mode's endpoint with these codes (400); it is recorded as wrong_route. */
export function checkAppMode(appIsChat: boolean, mode: CallMode) {
  if (mode === 'chat' && !appIsChat)
    throw new AppError(
      'not_chat_app',
      'App mode does not match the API route: this is not a chat app; call completion-messages',
      undefined,
      undefined,
      WRONG_ROUTE,
    );
  if (mode === 'completion' && appIsChat) {
    throw new AppError('app_unavailable', 'App mode does not match the API route: this is a chat app; call chat-messages', undefined, 400, WRONG_ROUTE);
  }
}

/**
 * The inputs a template is rendered with: an optional input the caller left out takes the
 * schema's default, else renders as an empty string (Dify's behaviour). Required inputs were
 * checked before; a variable the schema does not declare is left to the renderer's error.
 */
export function withOptionalInputs(schema: IoSchema, inputs: Record<string, unknown>): Record<string, unknown> {
  const required = new Set(schema.required ?? []);
  const filled: Record<string, unknown> = { ...inputs };
  for (const [name, property] of Object.entries(schema.properties)) {
    if (Object.hasOwn(inputs, name) && inputs[name] !== undefined && inputs[name] !== null) continue;
    // setOwn: an input named after an Object.prototype member stays an input of its own.
    if (property.default !== undefined && property.default !== null) setOwn(filled, name, property.default);
    else if (!required.has(name)) setOwn(filled, name, '');
  }
  return filled;
}

/**
 * Dify's usage price fields, decimal strings with 7 places like Dify's: total_price is what the call
 * was charged (micro-dollars, issue 60). A per-token card also fills the prompt and completion
 * parts (their unit prices per token, unit 1); other forms leave them "0".
 */
export function priceFields(chargedMicros: number, card: RateCard | null = null, usage: { inputTokens: number; outputTokens: number } | null = null) {
  const zero = '0.0000000';
  const perToken = card?.form === 'per_token' && usage !== null;
  return {
    prompt_unit_price: perToken ? perMillionAsPerToken(card.input_per_mtok_micros) : zero,
    prompt_price_unit: perToken ? '1.0000000' : zero,
    prompt_price: perToken ? microsToDifyDecimal(Math.ceil((usage.inputTokens * card.input_per_mtok_micros) / 1_000_000)) : zero,
    completion_unit_price: perToken ? perMillionAsPerToken(card.output_per_mtok_micros) : zero,
    completion_price_unit: perToken ? '1.0000000' : zero,
    completion_price: perToken ? microsToDifyDecimal(Math.ceil((usage.outputTokens * card.output_per_mtok_micros) / 1_000_000)) : zero,
    total_price: microsToDifyDecimal(chargedMicros),
    currency: 'USD',
  };
}

/** Micro-dollars as Dify's 7-place decimal string. */
const microsToDifyDecimal = (micros: number) => `${microsToDecimalDollars(micros)}0`;

/** A rate per million tokens (micro-dollars) as dollars per token, to 12 places (exact: micro-dollars per million tokens are 10^-12 dollars). */
function perMillionAsPerToken(microsPerMillion: number): string {
  const text = String(microsPerMillion).padStart(13, '0');
  return `${text.slice(0, -12)}.${text.slice(-12)}`;
}

/** Integer cents as a dollar decimal string with 7 places, without floating point. */
export function centsToDecimalDollars(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}00000`;
}

/** Integer micro-dollars as a dollar decimal string with 6 places, without floating point. */
export function microsToDecimalDollars(micros: number): string {
  const abs = Math.abs(Math.trunc(micros));
  return `${micros < 0 ? '-' : ''}${Math.floor(abs / 1_000_000)}.${String(abs % 1_000_000).padStart(6, '0')}`;
}

/** What a stored answer was charged, in micro-dollars (its usage.total_price), exactly. */
export function answerPriceMicros(answer: { metadata: { usage: { total_price?: string } } }): number {
  const total = answer.metadata.usage.total_price;
  if (total === undefined) return 0;
  const [whole = '0', fraction = ''] = total.replace('-', '').split('.');
  const micros = Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
  return total.startsWith('-') ? -micros : micros;
}

/** The cents a stored answer was charged, rounded up to a whole cent (X-Price-Cents on replays, cost_cents). */
export const answerPriceCents = (answer: { metadata: { usage: { total_price?: string } } }) => Math.ceil(answerPriceMicros(answer) / 10_000);
