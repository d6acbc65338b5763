// Margin in the prompt forms (issue 22): next to the price, what one call costs upstream. The
// model's prices, the worst case at the form's settings and the typical cost of the app's recent
// calls, from POST /api/prompt/cost-estimate/ (debounced while the prompt is typed). The forms
// read the same query for their save warning (useMarginGuard).
import { type CostEstimate, formatMicros as formatCardMicros, PRICE_FORM_NAMES, perCallCard, type RateCard, rateCardSummary } from '@tollbooth/contract';
import { useContext, useEffect, useState } from 'react';
import { HeadCells } from '@/components/ui/head-cells';
import { getErrorMessage } from '@/lib/errors';
import { formatCents } from '@/lib/format';
import { highPriceWarning, priceFarAboveCost } from '@/lib/price';
import { RuntimeConfigContext } from '@/lib/runtime-config';
import { useCostEstimate } from '../api/get-cost-estimate';
import {
  belowTypicalWarning,
  belowWorstCaseWarning,
  type CallMargin,
  type CostInputs,
  callMargins,
  cardBelowCostWarnings,
  costEstimateBody,
  formatMicros,
  formatPerMillion,
  priceBelowTypical,
  priceBelowWorstCase,
} from '../lib/model-cost.utils';

const DEBOUNCE_MS = 400;

function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  const text = JSON.stringify(value);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the value is compared by its JSON text, so a new but equal object does not restart the wait.
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [text, delayMs]);
  return settled;
}

/** The estimate of the form's settings as they settle; the panel and the save warning share it. */
export function useModelCost(inputs: CostInputs) {
  return useCostEstimate(useDebounced(costEstimateBody(inputs), DEBOUNCE_MS));
}

/**
 * Saving a live app whose price is below its typical model cost, or any app at a price far above it
 * (issue 61: "5" typed meaning 5¢ is $5.00): the first try shows the warning and does not save;
 * trying again with the same price (the warning's own button) saves.
 */
export function useMarginGuard(estimate: CostEstimate | undefined) {
  const [warned, setWarned] = useState<{ priceCents: number; cost: number | null; kind: 'typical' | 'worst' | 'above' } | null>(null);
  return {
    warning: warned
      ? warned.kind === 'above'
        ? highPriceWarning(warned.priceCents, warned.cost)
        : warned.kind === 'typical'
          ? belowTypicalWarning(warned.priceCents, warned.cost!)
          : belowWorstCaseWarning(warned.priceCents, warned.cost!)
      : null,
    /** `publishing`: this save takes the app live; `priceChanged`: false when the saved price is kept (it was asked about when set). */
    allowSave(priceCents: number, live: boolean, publishing = false, priceChanged = true): boolean {
      // The typical cost when the app has paid calls; before any, publishing checks the worst case the server reserves by (issue 61).
      const typical = estimate?.typical_micros ?? null;
      const below = live && (typical !== null ? priceBelowTypical(priceCents, estimate) : publishing && priceBelowWorstCase(priceCents, estimate));
      // Far above: against the typical cost, else the worst case, else nothing known (from $1.00).
      const above = priceChanged && priceFarAboveCost(priceCents, typical ?? estimate?.worst_case_micros ?? null);
      if (!below && !above) {
        setWarned(null);
        return true;
      }
      // Confirmed for this price: the estimate may have settled on a newer draft meanwhile, the creator's answer stands.
      if (warned?.priceCents === priceCents) return true;
      if (above) setWarned({ priceCents, cost: typical ?? estimate?.worst_case_micros ?? null, kind: 'above' });
      else setWarned({ priceCents, cost: typical ?? estimate!.worst_case_micros!, kind: typical !== null ? 'typical' : 'worst' });
      return false;
    },
  };
}

interface ModelCostPanelProps {
  inputs: CostInputs;
  /** The price per call as typed, in cents. */
  priceCents: number;
  /** The app's rate card (issue 60); absent: a price per call of priceCents. */
  card?: RateCard;
  /** The platform's fee in basis points of a charge; default: the server's (GET /config), else unknown. */
  feeBps?: number | null;
  /** The app calls its owner's own provider key: their provider bills the model, the platform posts no model cost. */
  ownKey?: boolean;
  className?: string;
}

export function ModelCostPanel({ inputs, priceCents, card, feeBps: givenFeeBps = null, ownKey = false, className = '' }: ModelCostPanelProps) {
  const serverFeeBps = useContext(RuntimeConfigContext)?.platform_fee_bps ?? null;
  const feeBps = givenFeeBps ?? serverFeeBps;
  const cost = useModelCost(inputs);
  const estimate = cost.data;
  const current = card ?? perCallCard(Math.max(0, Number.isFinite(priceCents) ? priceCents : 0));
  // Today's per-call warnings weigh a price per call; a per-token or cost-plus card is weighed by its rates (issue 60).
  const perCall = current.form === 'per_call';
  const belowTypical = !ownKey && perCall && priceBelowTypical(priceCents, estimate);
  const belowWorst = !ownKey && perCall && priceBelowWorstCase(priceCents, estimate);
  const formWarnings = ownKey ? [] : cardBelowCostWarnings(current, estimate);
  const margins = estimate && !ownKey ? callMargins(current, estimate, feeBps) : null;

  return (
    <section
      aria-labelledby="model-cost-heading"
      data-testid="model-cost-panel"
      className={`rounded-md bg-gray-50 p-4 text-sm ring-1 ring-gray-200 ${className}`}
    >
      <h2 id="model-cost-heading" className="font-semibold text-gray-900">
        Model cost per call{estimate ? <span className="font-normal text-gray-500"> · {estimate.model}</span> : null}
      </h2>
      {cost.isError && !estimate ? (
        <p className="mt-2 text-red-700">Could not estimate the model cost: {getErrorMessage(cost.error)}</p>
      ) : !estimate ? (
        <p className="mt-2 text-gray-500">Estimating…</p>
      ) : (
        <>
          <dl className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-3" aria-busy={cost.isFetching}>
            <div>
              <dt className="text-xs font-medium tracking-wide text-gray-500 uppercase">Model prices</dt>
              <dd className="mt-1 text-gray-900" data-testid="model-cost-prices">
                {estimate.prices
                  ? `${formatPerMillion(estimate.prices.input_per_million_usd)} in · ${formatPerMillion(estimate.prices.output_per_million_usd)} out per million tokens`
                  : 'No known price'}
              </dd>
            </div>
            <div>
              <dt className="text-xs font-medium tracking-wide text-gray-500 uppercase">Worst case</dt>
              <dd className="mt-1 text-gray-900" data-testid="model-cost-worst-case">
                {estimate.worst_case_micros === null ? 'Unknown' : formatMicros(estimate.worst_case_micros)}
                <span className="block text-xs text-gray-500">
                  {estimate.worst_case_input_tokens.toLocaleString('en-US')} input + {estimate.worst_case_output_tokens.toLocaleString('en-US')} output tokens
                </span>
              </dd>
            </div>
            <div>
              <dt className="text-xs font-medium tracking-wide text-gray-500 uppercase">Typical</dt>
              <dd className="mt-1 text-gray-900" data-testid="model-cost-typical">
                {estimate.typical_micros === null ? (
                  <span className="text-gray-500">No paid calls on this model yet</span>
                ) : (
                  <>
                    {formatMicros(estimate.typical_micros)}
                    <span className="block text-xs text-gray-500">
                      mean of the last {estimate.typical_calls} paid {estimate.typical_calls === 1 ? 'call' : 'calls'}
                    </span>
                  </>
                )}
              </dd>
            </div>
          </dl>
          {ownKey ? (
            <p className="mt-3 text-gray-600" data-testid="model-cost-own-key">
              This app calls your own provider key: your provider bills these model costs, and the platform posts none.
            </p>
          ) : estimate.prices === null ? (
            <p className="mt-3 text-amber-800">This model has no known price: it cannot answer on the platform's keys.</p>
          ) : null}
          {belowTypical ? (
            <p className="mt-3 rounded-md bg-amber-50 p-2 text-amber-900 ring-1 ring-amber-300" data-testid="model-cost-margin">
              Your price ({formatCents(priceCents)}) is below the typical model cost of a call: each call loses money.
            </p>
          ) : belowWorst ? (
            <p className="mt-3 rounded-md bg-amber-50 p-2 text-amber-900 ring-1 ring-amber-300" data-testid="model-cost-margin">
              Your price ({formatCents(priceCents)}) is below the worst case: a call that large costs you the difference from your balance.
            </p>
          ) : null}
          {formWarnings.length > 0 ? (
            <div className="mt-3 rounded-md bg-amber-50 p-2 text-amber-900 ring-1 ring-amber-300" data-testid="model-cost-form-warning" role="status">
              {formWarnings.map((warning) => (
                <p key={warning}>{warning}</p>
              ))}
            </div>
          ) : null}
          {margins && (margins.typical || margins.worst) ? <MarginTable card={current} typical={margins.typical} worst={margins.worst} /> : null}
          {estimate.unbounded_variables.length > 0 ? (
            <p className="mt-2 text-xs text-gray-600">
              {estimate.unbounded_variables.map((name) => `{{${name}}}`).join(', ')} {estimate.unbounded_variables.length === 1 ? 'has' : 'have'} no maximum
              length, so one call may send up to 64 KB of input: set a max length on the input schema to lower the worst case.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}

function MarginRow({ label, margin, testId }: { label: string; margin: CallMargin | null; testId: string }) {
  if (!margin) {
    return (
      <tr data-testid={testId}>
        <th scope="row" className="py-1 pr-3 text-left font-medium text-gray-700">
          {label}
        </th>
        <td colSpan={5} className="py-1 text-gray-500">
          No paid calls on this model yet
        </td>
      </tr>
    );
  }
  return (
    <tr data-testid={testId}>
      <th scope="row" className="py-1 pr-3 text-left font-medium text-gray-700">
        {label}
      </th>
      <td className="py-1 pr-3 text-gray-600">
        {margin.inputTokens.toLocaleString('en-US')} in + {margin.outputTokens.toLocaleString('en-US')} out
      </td>
      <td className="py-1 pr-3 text-gray-900">{formatCardMicros(margin.chargeMicros)}</td>
      <td className="py-1 pr-3 text-gray-900">{formatCardMicros(margin.modelCostMicros)}</td>
      <td className="py-1 pr-3 text-gray-900">{margin.feeMicros === null ? '—' : formatCardMicros(margin.feeMicros)}</td>
      <td className={`py-1 font-medium ${margin.netMicros < 0 ? 'text-red-700' : 'text-green-800'}`}>{formatCardMicros(margin.netMicros)}</td>
    </tr>
  );
}

/** A typical and a worst call under the card: charge, model cost, fee and what the creator keeps (issue 60). */
function MarginTable({ card, typical, worst }: { card: RateCard; typical: CallMargin | null; worst: CallMargin | null }) {
  const feeKnown = (typical ?? worst)?.feeMicros !== null;
  return (
    <div className="mt-4" data-testid="model-cost-margins">
      <h3 className="text-xs font-medium text-gray-500">
        <span className="tracking-wide uppercase">Your margin</span> · {PRICE_FORM_NAMES[card.form]}
        {/* A price per call is in the form beside the panel; the other cards are said here. */}
        {card.form === 'per_call' ? null : `: ${rateCardSummary(card)}`}
      </h3>
      {/* Scrolls sideways on a phone: focusable, so the keyboard can scroll it too. */}
      <section
        className="mt-1 overflow-x-auto"
        aria-label="Margin per call"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable).
        tabIndex={0}
      >
        <table className="w-full text-sm">
          <thead>
            <tr className="text-left text-xs text-gray-500">
              <HeadCells
                labels={['Call', 'Tokens', 'Charge', 'Model cost', 'Platform fee', feeKnown ? 'You keep' : 'You keep, before the fee']}
                y="py-1"
                gap="pr-3"
                medium
              />
            </tr>
          </thead>
          <tbody>
            <MarginRow label="Typical" margin={typical} testId="margin-typical" />
            <MarginRow label="Worst" margin={worst} testId="margin-worst" />
          </tbody>
        </table>
      </section>
      {typical ? (
        <p className="mt-1 text-xs text-gray-500">The typical call's tokens are the worst call's mix, scaled to the recent calls' mean model cost.</p>
      ) : null}
    </div>
  );
}
