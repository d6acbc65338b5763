// The create-key form's rules: a name (1 to 100 characters), an optional monthly limit and an
// optional cap on one call's price, both in whole cents.

export const KEY_NAME_REQUIRED = 'Key name is required.';
export const KEY_NAME_TOO_LONG = 'Key name must be at most 100 characters.';
export const SPEND_LIMIT_INVALID = 'Monthly spend limit must be a whole number of cents, 0 or more.';
export const MAX_PRICE_INVALID = 'Max price per call must be a whole number of cents, 0 or more.';

export const MAX_KEY_NAME_LENGTH = 100;
const MAX_SPEND_LIMIT_CENTS = 100_000_000_000;
const MAX_PRICE_CENTS = 100_000_000;

export interface ApiKeyFormValues {
  name: string;
  spendLimit: string;
  maxPrice: string;
}

export interface ApiKeyFormErrors {
  name?: string;
  spendLimit?: string;
  maxPrice?: string;
}

/** An empty limit means no limit (undefined); anything but a non-negative integer is invalid (NaN). */
export function parseSpendLimit(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!/^\d+$/.test(trimmed)) return Number.NaN;
  const cents = Number(trimmed);
  return cents <= MAX_SPEND_LIMIT_CENTS ? cents : Number.NaN;
}

export function validateApiKeyForm(values: ApiKeyFormValues): ApiKeyFormErrors {
  const errors: ApiKeyFormErrors = {};
  const name = values.name.trim();
  if (name === '') errors.name = KEY_NAME_REQUIRED;
  else if (name.length > MAX_KEY_NAME_LENGTH) errors.name = KEY_NAME_TOO_LONG;
  if (Number.isNaN(parseSpendLimit(values.spendLimit))) errors.spendLimit = SPEND_LIMIT_INVALID;
  const maxPrice = parseSpendLimit(values.maxPrice);
  if (Number.isNaN(maxPrice) || (maxPrice ?? 0) > MAX_PRICE_CENTS) errors.maxPrice = MAX_PRICE_INVALID;
  return errors;
}

export function buildCreateKeyBody(values: ApiKeyFormValues): { name: string; monthly_spend_limit_cents?: number; max_price_cents?: number } {
  const limit = parseSpendLimit(values.spendLimit);
  const maxPrice = parseSpendLimit(values.maxPrice);
  return {
    name: values.name.trim(),
    ...(limit === undefined ? {} : { monthly_spend_limit_cents: limit }),
    ...(maxPrice === undefined ? {} : { max_price_cents: maxPrice }),
  };
}
