// A server 400 about a price (issue 60: its `params` names the field, e.g. pricing.max_call_micros)
// shown on the chooser's field it is about, in the server's words.
import { fieldMessageOf, type PriceFormErrors, type PriceFormName, priceFieldOfParam } from '@/components/pricing/price-form.utils';
import { ApiError } from '@/lib/errors';

export function serverFieldErrors(error: unknown, form: PriceFormName): PriceFormErrors | null {
  if (!(error instanceof ApiError) || error.status !== 400 || !error.params) return null;
  const field = priceFieldOfParam(error.params, form);
  return field ? { [field]: fieldMessageOf(error.message, error.params) } : null;
}
