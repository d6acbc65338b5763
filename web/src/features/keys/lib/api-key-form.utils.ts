// The create-key form's rules: a name (1 to 100 characters) and an optional monthly limit in whole cents.

export const KEY_NAME_REQUIRED = 'Key name is required.';
export const KEY_NAME_TOO_LONG = 'Key name must be at most 100 characters.';
export const SPEND_LIMIT_INVALID = 'Monthly spend limit must be a whole number of cents, 0 or more.';

export const MAX_KEY_NAME_LENGTH = 100;
const MAX_SPEND_LIMIT_CENTS = 100_000_000_000;

export interface ApiKeyFormValues {
  name: string;
  spendLimit: string;
}

export interface ApiKeyFormErrors {
  name?: string;
  spendLimit?: string;
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
  return errors;
}

export function buildCreateKeyBody(values: ApiKeyFormValues): { name: string; monthly_spend_limit_cents?: number } {
  const limit = parseSpendLimit(values.spendLimit);
  return { name: values.name.trim(), ...(limit === undefined ? {} : { monthly_spend_limit_cents: limit }) };
}
