// Amounts are integer minor units of their currency, as Stripe takes them: cents for most, the
// whole amount for zero-decimal currencies (¥500 → 500, ₫100,000 → 100000). Three-decimal
// currencies are refused (Stripe wants their last digit 0; Tollbooth does not handle them).

/** Stripe's zero-decimal currencies. */
export const ZERO_DECIMAL_CURRENCIES = ['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf'];
/** Stripe's three-decimal currencies, which Tollbooth refuses. */
export const THREE_DECIMAL_CURRENCIES = ['bhd', 'jod', 'kwd', 'omr', 'tnd'];

/** Digits after the decimal point of a currency's major unit: 0 or 2 (null: not supported). */
export function currencyDecimals(currency: string): 0 | 2 | null {
  const code = currency.toLowerCase();
  if (THREE_DECIMAL_CURRENCIES.includes(code)) return null;
  return ZERO_DECIMAL_CURRENCIES.includes(code) ? 0 : 2;
}

/** Integer minor units → the amount in the currency's major unit (2500 usd → 25; 100000 vnd → 100000). */
export function minorToMajor(minor: number, currency: string): number {
  return currencyDecimals(currency) === 0 ? minor : minor / 100;
}
