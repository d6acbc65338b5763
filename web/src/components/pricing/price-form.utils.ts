// The price form chooser of the create and edit forms (issue 60): per call, per token or cost plus,
// with an optional minimum and most per call. Every amount is typed in dollars and sent in integer
// micro-dollars, read from its text (dollarsToMicros: no binary floating point). A whole-cent price
// per call with no minimum or most is still sent as price_cents, as before the rate cards.
import {
  type AppType,
  bpsMarkupText,
  dollarsToMicros,
  isWholeCentPerCall,
  MICROS_PER_CENT_AMOUNT,
  markupToBps,
  microsDollarsText,
  PRICE_FORM_NAMES,
  type PriceForm as PriceFormName,
  type Pricing,
  perCallCard,
  type RateCard,
  rateCardOf,
} from '@tollbooth/contract';

export type { PriceFormName };

/** The chooser's fields, as typed: dollars (per million tokens for the rates), the markup as a multiplier. */
export interface PriceFormValues {
  price_form: PriceFormName;
  /** per_call: the price per call. */
  price: string;
  /** per_token and cost_plus: a fee added to each call (optional). */
  call_fee: string;
  input_rate: string;
  output_rate: string;
  /** Empty: cached input tokens cost what input tokens do. */
  cached_rate: string;
  /** cost_plus: the model's cost × this ("1.25"). */
  markup: string;
  minimum: string;
  maximum: string;
}

export type PriceFormKey = keyof PriceFormValues;
export type PriceFormErrors = Partial<Record<PriceFormKey, string>>;

export const PRICE_FORM_FIELD_ORDER: PriceFormKey[] = [
  'price_form',
  'price',
  'input_rate',
  'output_rate',
  'cached_rate',
  'markup',
  'call_fee',
  'minimum',
  'maximum',
];

export const PRICE_FORM_LABELS = PRICE_FORM_NAMES;

export const COST_PLUS_WORKFLOW_REASON =
  "Cost plus needs a model whose cost Tollbooth knows: a Dify workflow's model is billed by Dify. Price a workflow per call or per token.";
export const WORKFLOW_MAXIMUM_REASON =
  "Required for a workflow priced per token: Dify reports a run's tokens only after it runs, so callers are held for this most.";
export const WORKFLOW_MAXIMUM_MISSING = 'Enter the most one call may be charged.';
export const PER_CALL_PRICE_MESSAGE = 'Price must be above $0 (sub-cent prices are fine: 0.005 is half a cent).';
const DECIMALS_MESSAGE = 'Use dollars with at most 6 decimals (a millionth of a dollar).';

/** Micro-dollars as a dollars field shows them: "1.00" for whole cents (as the price field always read), else every decimal needed ("0.005"). */
export function dollarsText(micros: number): string {
  if (micros % MICROS_PER_CENT_AMOUNT === 0) return (micros / 1_000_000).toFixed(2);
  return microsDollarsText(micros);
}

/** The chooser's values for a card in force (an app's `pricing`, else its whole-cent price per call). */
export function priceFormValuesOf(card: RateCard | undefined | null, priceCents: number): PriceFormValues {
  // rateCardOf fills what a partial card leaves out (every field the API shows is already set).
  const current = card ? rateCardOf(card as Pricing) : perCallCard(priceCents);
  const optional = (micros: number) => (micros > 0 ? dollarsText(micros) : '');
  return {
    price_form: current.form,
    price: dollarsText(current.form === 'per_call' ? current.call_micros : priceCents * MICROS_PER_CENT_AMOUNT),
    call_fee: current.form === 'per_call' ? '' : optional(current.call_micros),
    input_rate: current.form === 'per_token' ? dollarsText(current.input_per_mtok_micros) : '',
    output_rate: current.form === 'per_token' ? dollarsText(current.output_per_mtok_micros) : '',
    cached_rate: current.form === 'per_token' && current.cached_input_per_mtok_micros !== null ? dollarsText(current.cached_input_per_mtok_micros) : '',
    markup: current.form === 'cost_plus' ? bpsMarkupText(current.markup_bps) : '1.25',
    minimum: current.form === 'per_call' && current.minimum_micros <= current.call_micros ? '' : optional(current.minimum_micros),
    maximum: current.max_call_micros === null ? '' : dollarsText(current.max_call_micros),
  };
}

/** An optional amount: empty is "not set" (undefined); otherwise its micro-dollars, or null when unreadable. */
const optionalMicros = (text: string): number | undefined | null => (text.trim() === '' ? undefined : dollarsToMicros(text));

/** The chooser's field errors for an app of `type` (the server checks the same and names the field). */
export function validatePriceForm(values: PriceFormValues, type: AppType | ''): PriceFormErrors {
  const errors: PriceFormErrors = {};
  const amount = (key: PriceFormKey, required: string | null) => {
    const text = values[key].trim();
    if (text === '') {
      if (required) errors[key] = required;
      return;
    }
    if (dollarsToMicros(text) === null) errors[key] = /^\d*\.?\d*$/.test(text) && text !== '.' ? DECIMALS_MESSAGE : 'Enter an amount in dollars, such as 0.05.';
  };
  if (values.price_form === 'per_call') {
    const micros = dollarsToMicros(values.price);
    if (micros === null && /^\d*\.\d{7,}$/.test(values.price.trim())) errors.price = DECIMALS_MESSAGE;
    else if (!micros) errors.price = PER_CALL_PRICE_MESSAGE;
  } else if (values.price_form === 'per_token') {
    amount('input_rate', 'Enter the price per million input tokens (0 for none).');
    amount('output_rate', 'Enter the price per million output tokens (0 for none).');
    amount('cached_rate', null);
    if (!errors.input_rate && !errors.output_rate && dollarsToMicros(values.input_rate) === 0 && dollarsToMicros(values.output_rate) === 0)
      errors.input_rate = 'A per-token price needs an input or an output rate above $0.';
    amount('call_fee', null);
  } else {
    if (type === 'workflow') errors.price_form = COST_PLUS_WORKFLOW_REASON;
    const bps = markupToBps(values.markup);
    if (values.markup.trim() === '') errors.markup = 'Enter the markup, such as 1.25 for the model cost plus 25%.';
    else if (bps === null) errors.markup = 'Enter the markup as a number with at most 4 decimals, such as 1.25.';
    else if (bps === 0) errors.markup = 'The markup must be above 0.';
    amount('call_fee', null);
  }
  amount('minimum', null);
  amount('maximum', values.price_form === 'per_token' && type === 'workflow' ? WORKFLOW_MAXIMUM_MISSING : null);
  const minimum = optionalMicros(values.minimum);
  const maximum = optionalMicros(values.maximum);
  if (!errors.maximum && maximum === 0) errors.maximum = 'The most per call must be above $0 (leave it empty for no most).';
  else if (!errors.maximum && !errors.minimum && typeof maximum === 'number' && typeof minimum === 'number' && maximum < minimum)
    errors.maximum = 'The most per call is below the minimum per call.';
  return errors;
}

/**
 * What the create or update body carries for the price: `price_cents` for a whole-cent price per
 * call (no minimum, no most), else `pricing`. Call after validatePriceForm found nothing.
 */
export function priceBodyOf(values: PriceFormValues): { price_cents: number } | { pricing: Pricing } {
  const extras = (pricing: Pricing): Pricing => {
    const minimum = optionalMicros(values.minimum);
    const maximum = optionalMicros(values.maximum);
    if (minimum) pricing.minimum_micros = minimum;
    if (maximum) pricing.max_call_micros = maximum;
    return pricing;
  };
  const fee = (pricing: Pricing): Pricing => {
    const callFee = optionalMicros(values.call_fee);
    if (callFee) pricing.call_micros = callFee;
    return pricing;
  };
  if (values.price_form === 'per_call') {
    const pricing = extras({ form: 'per_call', call_micros: dollarsToMicros(values.price) ?? 0 });
    const whole = pricing.call_micros! % MICROS_PER_CENT_AMOUNT === 0 && pricing.minimum_micros === undefined && pricing.max_call_micros === undefined;
    return whole ? { price_cents: pricing.call_micros! / MICROS_PER_CENT_AMOUNT } : { pricing };
  }
  if (values.price_form === 'per_token') {
    const pricing: Pricing = {
      form: 'per_token',
      input_per_mtok_micros: dollarsToMicros(values.input_rate) ?? 0,
      output_per_mtok_micros: dollarsToMicros(values.output_rate) ?? 0,
    };
    const cached = optionalMicros(values.cached_rate);
    if (typeof cached === 'number') pricing.cached_input_per_mtok_micros = cached;
    return { pricing: extras(fee(pricing)) };
  }
  return { pricing: extras(fee({ form: 'cost_plus', markup_bps: markupToBps(values.markup) ?? 0 })) };
}

/** The price a high-price check weighs, in cents: a price per call (rounded up), else null (a per-token or cost-plus card is weighed by the cost panel). */
export function perCallPriceCents(values: PriceFormValues): number | null {
  if (values.price_form !== 'per_call') return null;
  const micros = dollarsToMicros(values.price);
  return micros === null ? 0 : Math.ceil(micros / MICROS_PER_CENT_AMOUNT);
}

/** Which chooser field a server 400 names (its `params`: price_cents, pricing.max_call_micros…), or null. */
export function priceFieldOfParam(param: string | undefined, form: PriceFormName): PriceFormKey | null {
  switch (param) {
    case 'price_cents':
      return 'price';
    case 'pricing.call_micros':
      return form === 'per_call' ? 'price' : 'call_fee';
    case 'pricing.input_per_mtok_micros':
      return 'input_rate';
    case 'pricing.output_per_mtok_micros':
      return 'output_rate';
    case 'pricing.cached_input_per_mtok_micros':
      return 'cached_rate';
    case 'pricing.markup_bps':
      return 'markup';
    case 'pricing.minimum_micros':
      return 'minimum';
    case 'pricing.max_call_micros':
      return 'maximum';
    case 'pricing.form':
    case 'pricing':
      return 'price_form';
    default:
      return null;
  }
}

/** A server message without the field name it starts with ("pricing.max_call_micros: is required…" → "Is required…"). */
export function fieldMessageOf(message: string, param: string): string {
  const rest = message.startsWith(`${param}: `) ? message.slice(param.length + 2) : message;
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

/** Whether the card is what the price_cents of an app says alone (the detail pages' whole-cent price field edits only such a card). */
export const isPlainPerCall = (card: RateCard | undefined | null) => !card || isWholeCentPerCall(card);
