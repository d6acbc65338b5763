// An app's rate card on save (issue 60): checked field by field (a 400 names the field), stored as
// price_cents alone when it is today's whole-cent price per call (pricing NULL: every path reads it
// as before), else as the card in apps.pricing with price_cents its least call rounded up to a cent
// (what lists sort and filter by). Whether a change costs callers more decides the notice
// (price-changes.ts), for every form.
import { isWholeCentPerCall, leastMicros, MICROS_PER_CENT_AMOUNT, type Pricing, perCallCard, type RateCard, rateCardOf } from '@tollbooth/contract';
import { invalidParam } from '../platform/errors.ts';

/** The most a markup may be: ×100. */
const MAX_MARKUP_BPS = 1_000_000;

export interface StoredPrice {
  priceCents: number;
  /** null: per call at priceCents. */
  pricing: RateCard | null;
}

/** The card in force: the stored one, or today's per-call price. */
export const cardOf = (priceCents: number, pricing: RateCard | null): RateCard => pricing ?? perCallCard(Number(priceCents));

/** Checks a card for an app of `type` and says how it is stored. */
export function storedPrice(input: Pricing, type: 'prompt' | 'workflow', limitMicros: number): StoredPrice {
  const card = rateCardOf(input);
  const limit = (field: keyof RateCard, value: number | null) => {
    if (value !== null && value > limitMicros)
      throw invalidParam(`pricing.${field}`, `is above the most a price may be ($${limitMicros / 1_000_000}; PRICE_LIMIT_DOLLARS)`);
  };
  for (const field of [
    'call_micros',
    'minimum_micros',
    'max_call_micros',
    'input_per_mtok_micros',
    'output_per_mtok_micros',
    'cached_input_per_mtok_micros',
  ] as const)
    limit(field, card[field]);
  if (card.markup_bps > MAX_MARKUP_BPS) throw invalidParam('pricing.markup_bps', `is above the most a markup may be (${MAX_MARKUP_BPS}, ×100)`);
  if (card.form === 'per_token' && card.input_per_mtok_micros === 0 && card.output_per_mtok_micros === 0)
    throw invalidParam('pricing.input_per_mtok_micros', 'a per-token price needs an input or an output rate above 0');
  if (card.form === 'per_token' && type === 'workflow' && card.max_call_micros === null)
    throw invalidParam('pricing.max_call_micros', "is required for a workflow app priced per token: Dify does not say a run's tokens before it runs");
  if (card.form === 'cost_plus' && type === 'workflow')
    throw invalidParam('pricing.form', 'cost_plus needs a model whose cost Tollbooth knows; price a workflow app per call or per token');
  if (card.form === 'cost_plus' && input.markup_bps === undefined) throw invalidParam('pricing.markup_bps', 'is required for a cost-plus price');
  if (card.form !== 'per_token' && (input.input_per_mtok_micros || input.output_per_mtok_micros || input.cached_input_per_mtok_micros))
    throw invalidParam('pricing.form', 'token rates apply to a per_token price only');
  if (card.form !== 'cost_plus' && input.markup_bps !== undefined) throw invalidParam('pricing.markup_bps', 'applies to a cost_plus price only');
  if (card.max_call_micros !== null && card.max_call_micros < card.minimum_micros)
    throw invalidParam('pricing.max_call_micros', 'is below the minimum per call');
  if (card.max_call_micros !== null && card.max_call_micros === 0) throw invalidParam('pricing.max_call_micros', 'must be above 0');
  if (isWholeCentPerCall(card)) return { priceCents: card.call_micros / MICROS_PER_CENT_AMOUNT, pricing: null };
  return { priceCents: Math.ceil(leastMicros(card) / MICROS_PER_CENT_AMOUNT), pricing: card };
}

/** Whether some call would cost more under `next` than under `current` (then the notice rule applies). */
export function costsMore(current: RateCard, next: RateCard): boolean {
  if (current.form !== next.form) return leastMicros(next) > 0 || next.form !== 'per_call';
  const cached = (card: RateCard) => card.cached_input_per_mtok_micros ?? card.input_per_mtok_micros;
  return (
    next.call_micros > current.call_micros ||
    next.input_per_mtok_micros > current.input_per_mtok_micros ||
    next.output_per_mtok_micros > current.output_per_mtok_micros ||
    cached(next) > cached(current) ||
    next.markup_bps > current.markup_bps ||
    next.minimum_micros > current.minimum_micros ||
    (next.max_call_micros ?? Number.POSITIVE_INFINITY) > (current.max_call_micros ?? Number.POSITIVE_INFINITY)
  );
}
