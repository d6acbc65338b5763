// An app's price form (issue 60): per call, per token, or cost-plus, each with a per-call minimum.
// Every amount is an integer in micro-dollars (a cent is 10,000): the rate card, the most a call
// may cost (what is authorised before the model is asked) and what it cost (what is captured).
// One rule, used by the server to charge and by the web app and the generated app to show it.
import { type Static, Type } from 'typebox';

export const MICROS_PER_DOLLAR = 1_000_000;
export const MICROS_PER_CENT_AMOUNT = 10_000;
/** A markup is in basis points of the model's cost: 12,500 is ×1.25. */
export const MARKUP_ONE = 10_000;

export const PriceForm = Type.Union([Type.Literal('per_call'), Type.Literal('per_token'), Type.Literal('cost_plus')], {
  description: "per_call: a fixed price; per_token: rates per million input, output and cached input tokens; cost_plus: the model's cost × markup",
});
export type PriceForm = Static<typeof PriceForm>;

const Micros = (description: string) => Type.Integer({ minimum: 0, description });

/** The rate card as the API takes and shows it. Omitted amounts are 0. */
export const Pricing = Type.Object(
  {
    form: PriceForm,
    call_micros: Type.Optional(Micros('Per call, in micro-dollars: the price (per_call), or a fee added to each call (per_token, cost_plus)')),
    input_per_mtok_micros: Type.Optional(Micros('per_token: micro-dollars per million input tokens')),
    output_per_mtok_micros: Type.Optional(Micros('per_token: micro-dollars per million output tokens')),
    cached_input_per_mtok_micros: Type.Optional(
      Type.Union([Micros('per_token: micro-dollars per million cached input tokens (where the provider reports them)'), Type.Null()]),
    ),
    markup_bps: Type.Optional(Type.Integer({ minimum: 0, description: "cost_plus: the model's cost × markup_bps / 10,000 (12,500 is ×1.25)" })),
    minimum_micros: Type.Optional(Micros('The least a call is charged, in micro-dollars')),
    max_call_micros: Type.Optional(
      Type.Union([
        Micros('The most one call is charged, in micro-dollars (required for workflow apps priced per token: Dify does not say up front)'),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);
export type Pricing = Static<typeof Pricing>;

/** The rate card as the API shows it: every field set. */
export const RateCardView = Type.Object({
  form: PriceForm,
  call_micros: Type.Integer(),
  input_per_mtok_micros: Type.Integer(),
  output_per_mtok_micros: Type.Integer(),
  cached_input_per_mtok_micros: Type.Union([Type.Integer(), Type.Null()]),
  markup_bps: Type.Integer(),
  minimum_micros: Type.Integer(),
  max_call_micros: Type.Union([Type.Integer(), Type.Null()]),
});

/** A rate card with every field set (what the server stores and computes with). */
export interface RateCard {
  form: PriceForm;
  call_micros: number;
  input_per_mtok_micros: number;
  output_per_mtok_micros: number;
  /** null: cached input tokens are priced as input tokens. */
  cached_input_per_mtok_micros: number | null;
  markup_bps: number;
  minimum_micros: number;
  max_call_micros: number | null;
}

export function rateCardOf(pricing: Pricing): RateCard {
  return {
    form: pricing.form,
    call_micros: pricing.call_micros ?? 0,
    input_per_mtok_micros: pricing.input_per_mtok_micros ?? 0,
    output_per_mtok_micros: pricing.output_per_mtok_micros ?? 0,
    cached_input_per_mtok_micros: pricing.cached_input_per_mtok_micros ?? null,
    markup_bps: pricing.markup_bps ?? (pricing.form === 'cost_plus' ? MARKUP_ONE : 0),
    minimum_micros: pricing.minimum_micros ?? 0,
    max_call_micros: pricing.max_call_micros ?? null,
  };
}

/** Today's form: a whole-cent price per call. */
export function perCallCard(priceCents: number): RateCard {
  return rateCardOf({ form: 'per_call', call_micros: priceCents * MICROS_PER_CENT_AMOUNT });
}

/** What a call used: tokens (cached input tokens are part of inputTokens) and the model's cost on the operator's key. */
export interface PricedUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  modelCostMicros: number;
}

/**
 * What a call costs its caller, in micro-dollars, rounded once (up, to a whole micro-dollar) and
 * then held between the card's minimum and its most per call.
 */
export function chargeMicros(card: RateCard, usage: PricedUsage): number {
  let amount = card.call_micros;
  if (card.form === 'per_token') {
    const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
    const cachedRate = card.cached_input_per_mtok_micros ?? card.input_per_mtok_micros;
    // Integers below 2^53 for any realistic call (10^7 tokens × 10^9 micros per million would not be).
    const perMillion = (usage.inputTokens - cached) * card.input_per_mtok_micros + cached * cachedRate + usage.outputTokens * card.output_per_mtok_micros;
    amount += Math.ceil(perMillion / 1_000_000);
  } else if (card.form === 'cost_plus') {
    amount += Math.ceil((usage.modelCostMicros * card.markup_bps) / MARKUP_ONE);
  }
  amount = Math.max(amount, card.minimum_micros);
  return card.max_call_micros === null ? amount : Math.min(amount, card.max_call_micros);
}

/** The most a call can use before it is made: prompt tokens at most, max_tokens, and the worst model cost. Null fields: unknown. */
export interface UsageBound {
  inputTokens: number | null;
  outputTokens: number | null;
  modelCostMicros: number | null;
}

/**
 * The most a call may cost (what is authorised before the model is asked), or null when nothing
 * bounds it (a per-token workflow app without max_call_micros: refused on save).
 */
export function mostMicros(card: RateCard, bound: UsageBound): number | null {
  if (card.form === 'per_call') return chargeMicros(card, { inputTokens: 0, outputTokens: 0, modelCostMicros: 0 });
  if (card.form === 'per_token') {
    if (bound.inputTokens === null || bound.outputTokens === null) return card.max_call_micros;
    return chargeMicros(card, { inputTokens: bound.inputTokens, outputTokens: bound.outputTokens, modelCostMicros: 0 });
  }
  if (bound.modelCostMicros === null) return card.max_call_micros;
  return chargeMicros(card, { inputTokens: 0, outputTokens: 0, modelCostMicros: bound.modelCostMicros });
}

/** The least a call is charged. */
export const leastMicros = (card: RateCard) => Math.min(Math.max(card.call_micros, card.minimum_micros), card.max_call_micros ?? Number.POSITIVE_INFINITY);

/** Whether the card is today's whole-cent per-call price (price_cents tells all of it). */
export const isWholeCentPerCall = (card: RateCard) =>
  card.form === 'per_call' && card.call_micros % MICROS_PER_CENT_AMOUNT === 0 && card.minimum_micros <= card.call_micros && card.max_call_micros === null;

/** Micro-dollars as dollars, with as many decimals as they need (at least 2, at most 6): $0.0123, $1.50. */
export function formatMicros(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_DOLLAR);
  const trimmed = String(abs % MICROS_PER_DOLLAR)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${sign}$${whole.toLocaleString('en-US')}.${trimmed}`;
}

/** Micro-dollars as a decimal number of dollars, exactly (for JSON fields in dollars: usage.cost, total_price). */
export const microsToDollars = (micros: number) => micros / MICROS_PER_DOLLAR;

/** The rate card in words, one line a part: "$2.00 per million input tokens", "minimum $0.001 per call". */
export function rateCardLines(card: RateCard): string[] {
  const lines: string[] = [];
  if (card.form === 'per_call') lines.push(`${formatMicros(card.call_micros)} per call`);
  if (card.form === 'per_token') {
    lines.push(`${formatMicros(card.input_per_mtok_micros)} per million input tokens`);
    lines.push(`${formatMicros(card.output_per_mtok_micros)} per million output tokens`);
    if (card.cached_input_per_mtok_micros !== null) lines.push(`${formatMicros(card.cached_input_per_mtok_micros)} per million cached input tokens`);
  }
  if (card.form === 'cost_plus') lines.push(`model cost × ${(card.markup_bps / MARKUP_ONE).toFixed(card.markup_bps % 100 === 0 ? 2 : 4)}`);
  if (card.form !== 'per_call' && card.call_micros > 0) lines.push(`plus ${formatMicros(card.call_micros)} per call`);
  if (card.minimum_micros > 0 && (card.form !== 'per_call' || card.minimum_micros > card.call_micros))
    lines.push(`minimum ${formatMicros(card.minimum_micros)} per call`);
  if (card.max_call_micros !== null) lines.push(`at most ${formatMicros(card.max_call_micros)} per call`);
  return lines;
}

/** Micro-dollars per million tokens as dollars per token, exactly (10^-12 dollars), trailing zeros cut: 2,000,000 → "0.000002". */
export function perTokenDollars(microsPerMillion: number): string {
  const text = String(microsPerMillion).padStart(13, '0');
  const fraction = text.slice(-12).replace(/0+$/, '');
  return fraction === '' ? text.slice(0, -12) : `${text.slice(0, -12)}.${fraction}`;
}

/** Micro-dollars as a decimal string of dollars, trailing zeros cut: 50,000 → "0.05". */
export function microsDollarsText(micros: number): string {
  const fraction = String(micros % MICROS_PER_DOLLAR)
    .padStart(6, '0')
    .replace(/0+$/, '');
  const whole = String(Math.floor(micros / MICROS_PER_DOLLAR));
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** OpenRouter's `pricing` of a model: dollars per token (prompt, completion, input_cache_read) and per call (request), as decimal strings. */
export function openRouterPricing(card: RateCard): { prompt: string; completion: string; request: string; input_cache_read?: string } {
  const perToken = card.form === 'per_token';
  const pricing: { prompt: string; completion: string; request: string; input_cache_read?: string } = {
    prompt: perToken ? perTokenDollars(card.input_per_mtok_micros) : '0',
    completion: perToken ? perTokenDollars(card.output_per_mtok_micros) : '0',
    request: microsDollarsText(card.call_micros),
  };
  if (perToken && card.cached_input_per_mtok_micros !== null) pricing.input_cache_read = perTokenDollars(card.cached_input_per_mtok_micros);
  return pricing;
}

/** One line for a catalog card: "$0.05 per call", "$2.00 / $8.00 per million tokens", "model cost × 1.25". */
export function rateCardSummary(card: RateCard): string {
  if (card.form === 'per_token') return `${formatMicros(card.input_per_mtok_micros)} in / ${formatMicros(card.output_per_mtok_micros)} out per million tokens`;
  return rateCardLines(card)[0]!;
}

/**
 * A decimal string of dollars (an answer's usage.total_price "0.0051200", usage.cost as text) as
 * micro-dollars, exactly: digits past the sixth decimal round half up. Not a number: 0.
 */
export function microsOfDollarsText(text: string): number {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match || (match[2] === '' && !match[3])) return 0;
  const fraction = (match[3] ?? '').padEnd(7, '0');
  const micros = Number(match[2] || '0') * MICROS_PER_DOLLAR + Number(fraction.slice(0, 6)) + (Number(fraction[6]) >= 5 ? 1 : 0);
  return match[1] === '-' ? -micros : micros;
}

/**
 * A decimal typed by a person ("0.005", "12", ".5", "1.") as an integer scaled by 10^places, moved
 * in its text (no binary floating point: 0.000007 is 7, not 6.999…). Null when it is not a plain
 * non-negative decimal, has more than `places` decimals, or is beyond an exact integer.
 */
function scaledInteger(text: string, places: number): number | null {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match || (match[1] === '' && (match[2] ?? '') === '')) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > places) return null;
  const digits = `${match[1]}${fraction.padEnd(places, '0')}`.replace(/^0+(?=\d)/, '');
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : null;
}

/** Dollars as typed ("0.005", "$2.50") in micro-dollars, exactly; null when not a number or finer than a micro-dollar (more than 6 decimals). */
export const dollarsToMicros = (text: string): number | null => scaledInteger(text.trim().replace(/^\$/, ''), 6);

/** A markup as typed ("1.25", "×2") in basis points (12,500); null when not a number or finer than 4 decimals. */
export const markupToBps = (text: string): number | null => scaledInteger(text.trim().replace(/^[×x]/i, ''), 4);

/** Basis points as the markup a person types: 12,500 → "1.25". */
export function bpsMarkupText(bps: number): string {
  const fraction = String(bps % MARKUP_ONE)
    .padStart(4, '0')
    .replace(/0+$/, '');
  const whole = String(Math.floor(bps / MARKUP_ONE));
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** Each form as a person reads it. */
export const PRICE_FORM_NAMES: Record<PriceForm, string> = { per_call: 'Per call', per_token: 'Per token', cost_plus: 'Cost plus' };
