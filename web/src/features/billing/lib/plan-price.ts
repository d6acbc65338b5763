// A plan's price as its currency writes it. US dollars keep the spec's "$9.99" text; other
// currencies use their own symbol and minor unit (₫100,000, ¥500, €9.50), never a dollar sign.
export function planPrice(price: number, currency: string): string {
  if (currency.toLowerCase() === 'usd') return `$${price}`;
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(price);
  } catch {
    return `${price} ${currency.toUpperCase()}`;
  }
}
