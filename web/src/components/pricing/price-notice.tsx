// Issue 61, trap 1: a price increase that waits for its notice period says so where it was saved:
// when the new price applies, why (the app's callers and subscribers), and what the calls until then
// cost the creator at the typical model cost. The save's answer carries it (Application.price_notice).
import type { Application } from '@tollbooth/contract';
import { formatCents, formatDateTime } from '@/lib/format';

const MICROS_PER_DOLLAR = 1_000_000;
const dollarsOfMicros = (micros: number) =>
  micros === 0 ? '$0' : micros >= 100 ? `$${(micros / MICROS_PER_DOLLAR).toFixed(4)}` : `$${(micros / MICROS_PER_DOLLAR).toPrecision(3)}`;

/** The sentences of the notice (tested on their own). */
export function priceNoticeText(app: Pick<Application, 'price_cents' | 'upcoming_price_cents' | 'price_notice'>): string[] | null {
  const notice = app.price_notice;
  if (!notice || app.upcoming_price_cents === null) return null;
  const who = [
    notice.calls_last_period > 0
      ? `${notice.calls_last_period} ${notice.calls_last_period === 1 ? 'call' : 'calls'} from others in the last ${notice.notice_days} days`
      : null,
    notice.subscribers > 0 ? `${notice.subscribers} ${notice.subscribers === 1 ? 'subscriber' : 'subscribers'}` : null,
  ]
    .filter(Boolean)
    .join(' and ');
  const lines = [
    `Your new price ${formatCents(app.upcoming_price_cents)} applies on ${formatDateTime(notice.applies_at)}: this app has ${who}, who get ${notice.notice_days} days' notice of an increase.`,
  ];
  if (notice.typical_model_cost_micros === null) {
    lines.push(`Until then calls sell at ${formatCents(app.price_cents)}; no paid call shows its model cost yet.`);
  } else if (notice.loss_until_then_micros && notice.loss_until_then_micros > 0) {
    lines.push(
      `Until then each call sells at ${formatCents(app.price_cents)} against a typical model cost of ${dollarsOfMicros(notice.typical_model_cost_micros)}: at the last ${notice.notice_days} days' pace the calls until then cost you about ${dollarsOfMicros(notice.loss_until_then_micros)}.`,
    );
  } else {
    lines.push(
      `Until then calls sell at ${formatCents(app.price_cents)}, which covers their typical model cost (${dollarsOfMicros(notice.typical_model_cost_micros)}).`,
    );
  }
  return lines;
}

export function PriceNotice({ app, className = '' }: { app: Pick<Application, 'price_cents' | 'upcoming_price_cents' | 'price_notice'>; className?: string }) {
  const lines = priceNoticeText(app);
  if (!lines) return null;
  return (
    <div role="status" data-testid="price-notice" className={`rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-300 ${className}`}>
      {lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
    </div>
  );
}
