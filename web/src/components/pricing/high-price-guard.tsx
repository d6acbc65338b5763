// Issue 61, trap 5: a price far above what a call costs (typically "5" typed meaning 5¢, now $5.00)
// is saved only when the creator confirms it, with a button in the warning itself. The forms that
// know no model cost (create, edit, a workflow's settings) ask above $1.00 a call; the prompt forms
// ask through useMarginGuard, which knows the app's cost.
import { useState } from 'react';
import { highPriceWarning, priceFarAboveCost } from '@/lib/price';
import { ConfirmPriceButton } from './confirm-price-button';

export function useHighPriceGuard() {
  const [warned, setWarned] = useState<{ priceCents: number; costMicros: number | null } | null>(null);
  return {
    warning: warned ? highPriceWarning(warned.priceCents, warned.costMicros) : null,
    /** The price the warning is about: the confirmation button saves at it. */
    warnedPriceCents: warned?.priceCents ?? null,
    /**
     * False (and the warning shown) when a price far above the cost is saved unconfirmed; true when
     * it is not far above, or `confirmedCents` (what the warning's button confirmed) is this price.
     */
    allow(priceCents: number, costMicros: number | null = null, confirmedCents: number | null = null): boolean {
      if (!priceFarAboveCost(priceCents, costMicros) || confirmedCents === priceCents) {
        setWarned(null);
        return true;
      }
      setWarned({ priceCents, costMicros });
      return false;
    },
  };
}

/** The warning with its own confirmation button; `onConfirm` saves again at the warned price. */
export function HighPriceWarning({ warning, label, onConfirm }: { warning: string | null; label: string; onConfirm: () => void }) {
  if (!warning) return null;
  return (
    <div role="alert" data-testid="high-price-warning" className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-300">
      <p>{warning}</p>
      <ConfirmPriceButton label={label} onConfirm={onConfirm} />
    </div>
  );
}
