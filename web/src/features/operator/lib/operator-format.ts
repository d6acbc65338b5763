// Money on the operator page: cents where callers pay and fees are taken, micro-dollars (1/10,000
// cent) for model cost and net, all shown in dollars.
export const MICROS_PER_CENT = 10_000;

/** Dollars with two decimals, negative amounts with a minus sign: -4.8 → "-$4.80". */
export function formatUsd(dollars: number, fractionDigits = 2): string {
  const text = `$${Math.abs(dollars).toLocaleString('en-US', { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits })}`;
  return dollars < 0 ? `-${text}` : text;
}

export const centsText = (cents: number) => formatUsd(cents / 100);

/** Micro-dollars in dollars; below a cent with four decimals so small model costs do not read as $0.00. */
export const microsText = (micros: number) => formatUsd(micros / 1_000_000, Math.abs(micros) < MICROS_PER_CENT * 100 && micros !== 0 ? 4 : 2);

/** The daily series as the chart draws it: dollars. */
export function chartPoints(daily: readonly { date: string; paid_cents: number; fee_cents: number; model_cost_micros: number; creators_net_micros: number }[]) {
  return daily.map((day) => ({
    date: day.date,
    paid: day.paid_cents / 100,
    fees: day.fee_cents / 100,
    model_cost: day.model_cost_micros / 1_000_000,
    net: day.creators_net_micros / 1_000_000,
  }));
}
