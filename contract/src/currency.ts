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

/** en-US thousands separators for a string of digits: "1234567" → "1,234,567". */
export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// Built on first use, one per currency: a page's first Intl.NumberFormat loads the browser's
// number-format data, 35–55 ms of main thread (~200 ms on Lighthouse's 4x slower phone), so whole
// cents are written out below without it and the dashboard's first render never builds one
// (docs/decisions/0020-web-delivery.md, "Update (issue 15, dashboard)").
const currencyFormats = new Map<string, Intl.NumberFormat>();
function currencyFormat(code: string, decimals: number): Intl.NumberFormat {
  let format = currencyFormats.get(code);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code, minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    currencyFormats.set(code, format);
  }
  return format;
}

/** Integer cents as US dollars with two decimals: 100 → "$1.00". Same text as Intl's en-US USD format. */
export function formatCents(cents: number): string {
  const rounded = Math.round(cents);
  // Whole cents are exact in integer arithmetic. -0, NaN, infinities and amounts from $10 trillion
  // up (where cents / 100 is no longer exact as a double, so Intl's text differs) go to Intl.
  if (Number.isInteger(rounded) && Math.abs(rounded) < 1e15 && !Object.is(rounded, -0)) {
    const magnitude = Math.abs(rounded);
    const text = `$${groupThousands(String(Math.floor(magnitude / 100)))}.${String(magnitude % 100).padStart(2, '0')}`;
    return rounded < 0 ? `-${text}` : text;
  }
  return currencyFormat('USD', 2).format(rounded / 100);
}

/**
 * An amount in integer minor units of its currency, in that currency's own unit and symbol, the one
 * money format of the web and the server: (2500, 'usd') → "$25.00", (100000, 'vnd') → "₫100,000",
 * (1500, 'jpy') → "¥1,500", (950, 'eur') → "€9.50", -0 → "$0.00". Zero-decimal currencies are never
 * divided by 100; amounts in different currencies are never added (decision 0035).
 */
export function formatMinor(minor: number, currency: string): string {
  const code = currency.toLowerCase();
  // -0 would print as "-$0.00".
  const amount = minor || 0;
  if (code === 'usd') return formatCents(amount);
  const decimals = currencyDecimals(code) ?? 2;
  const major = decimals === 0 ? amount : amount / 100;
  try {
    return currencyFormat(code.toUpperCase(), decimals).format(major);
  } catch {
    return formatMinorWithCode(amount, code);
  }
}

/**
 * The same amount as plain text with the currency's code, for text read without symbols (ledger
 * descriptions, an OpenAPI document): (2500, 'usd') → "25.00 USD", (1500, 'jpy') → "1500 JPY".
 */
export function formatMinorWithCode(minor: number, currency: string): string {
  const decimals = currencyDecimals(currency) === 0 ? 0 : 2;
  return `${(decimals === 0 ? minor : minor / 100).toFixed(decimals)} ${currency.toUpperCase()}`;
}
