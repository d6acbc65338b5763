// Callers cap what one call may cost: per API key (max_price_cents) and per call
// (X-Max-Price-Cents). The lower cap wins; a call priced above it is refused before anything is
// reserved, so it is never charged.
import type { AuthContext } from '../auth/plugin.ts';
import { AppError } from '../platform/errors.ts';

export function checkPriceCap(priceCents: number, auth: AuthContext, headerCapCents: number | null) {
  const caps = [auth.apiKey?.maxPriceCents ?? null, headerCapCents].filter((cap): cap is number => cap !== null);
  if (caps.length === 0 || priceCents === 0) return;
  const cap = Math.min(...caps);
  if (priceCents > cap) {
    throw new AppError('price_above_limit', `This call costs ${priceCents} cents, above your limit of ${cap} cents`, 'X-Max-Price-Cents');
  }
}
