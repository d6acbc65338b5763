// What a test or a console call charged, in words (issue 61, trap 9: the builder's Test Prompt took a
// cent without saying so, and the console never said what a call cost).
import { type CallUsage, formatMicros, microsOfDollarsText, type PromptTestResult } from '@tollbooth/contract';
import { formatModelCost } from './format';

const dollarsOfMicros = (micros: number) => (micros === 0 ? '$0.00' : formatModelCost(micros / 1_000_000));

/** A test run with the model: its model cost and who paid it. */
export function testRunChargeText(cost: NonNullable<PromptTestResult['run_cost']>): string {
  if (cost.paid_by === 'demo') return 'Charged: nothing — the built-in demo model answered (demo answers are free).';
  if (cost.paid_by === 'own_key') return 'Charged: nothing here — your own provider key answered, so your provider bills the model use.';
  return `Charged: ${dollarsOfMicros(cost.model_cost_micros)} of model use, from your credits (posted in whole cents as test runs add up).`;
}

/**
 * A call from the console: its exact amount (issue 60: a per-token call costs fractions of a cent),
 * or on the owner's own app, the model cost the owner's credits pay.
 */
export function callChargeText(usage: Pick<CallUsage, 'total_price' | 'owner_model_cost'>, demo = false): string {
  if (demo) return 'Charged: nothing — the built-in demo model answered (demo answers are free).';
  const price = usage.total_price === undefined ? 0 : microsOfDollarsText(usage.total_price);
  if (usage.owner_model_cost !== undefined) {
    const micros = Math.round(Number(usage.owner_model_cost) * 1_000_000);
    return `Charged: no price (your own app) and ${dollarsOfMicros(micros)} of model use, from your credits.`;
  }
  if (price === 0) return 'Charged: $0.00 (a call included in your plan, or a free app).';
  return `Charged: ${formatMicros(price)}, the app's price, from your credits.`;
}
