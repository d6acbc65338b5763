// A statement as CSV: RFC 4180 through the analytics export's cells (http/csv.ts: quoting,
// CRLF, and a leading apostrophe on text a spreadsheet would run as a formula, = + - @). One line
// per figure or detail, in a fixed column order; amounts in minor units and in the currency's
// major unit, written as plain numbers (never prefixed: a number is not a formula).
import { currencyDecimals, type Statement } from '@tollbooth/contract';
import { type CsvCell, csvCell } from '../../http/csv.ts';

export const STATEMENT_CSV_COLUMNS = [
  'month',
  'role',
  'currency',
  'section',
  'date',
  'description',
  'app',
  'plan',
  'calls',
  'period_start',
  'period_end',
  'gross_minor',
  'fee_minor',
  'model_cost_minor',
  'model_cost_micros',
  'model_cost_from_credits_minor',
  'margin_micros',
  'amount_minor',
  'amount',
  'reference',
  'receipt_url',
] as const;

type Column = (typeof STATEMENT_CSV_COLUMNS)[number];
type Line = Partial<Record<Column, CsvCell>>;

/** Minor units → the major unit as a plain decimal string (1234 usd → "12.34", 100000 vnd → "100000"). */
export function majorAmount(minor: number, currency: string): string {
  if (currencyDecimals(currency) === 0) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const magnitude = Math.abs(minor);
  return `${sign}${Math.floor(magnitude / 100)}.${String(magnitude % 100).padStart(2, '0')}`;
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const cell = (value: CsvCell) => (typeof value === 'string' && NUMBER.test(value) ? value : csvCell(value));

export function statementCsv(statement: Statement): string {
  const lines: Line[] = [];
  const add = (currency: string, section: string, amount: number | null, line: Line = {}) =>
    lines.push({
      month: statement.month,
      role: statement.role,
      currency: currency.toUpperCase(),
      section,
      ...line,
      amount_minor: amount,
      amount: amount === null ? null : majorAmount(amount, currency),
    });

  for (const block of statement.caller ?? []) {
    const c = block.currency;
    add(c, 'opening_balance', block.opening_balance_cents, { date: statement.from });
    for (const t of block.top_ups)
      add(c, 'top_up', t.amount_cents, { date: t.date, description: 'Credits top-up (card)', reference: t.payment_intent_id, receipt_url: t.receipt_url });
    for (const a of block.adjustments) add(c, a.kind, a.amount_cents, { date: a.date, description: a.description, reference: a.reference });
    for (const s of block.spend_by_app) add(c, 'spend', -s.amount_cents, { description: `Calls to ${s.app_name}`, app: s.app_slug, calls: s.calls });
    for (const o of block.other) add(c, 'other', o.amount_cents, { date: o.date, description: o.description, reference: o.kind });
    for (const s of block.subscriptions)
      add(c, 'subscription', s.amount_cents, {
        date: s.date,
        description: `Subscription to ${s.app_name} (paid by card)`,
        app: s.app_slug,
        plan: s.plan,
        period_start: s.period_start,
        period_end: s.period_end,
        reference: s.invoice_id,
      });
    add(c, 'closing_balance', block.closing_balance_cents, { date: statement.to });
  }

  for (const block of statement.creator ?? []) {
    const c = block.currency;
    add(c, 'opening_balance', block.opening_balance_cents, { date: statement.from });
    for (const r of block.calls)
      add(c, 'calls', r.net_cents, {
        description: `Calls to ${r.app_name}`,
        app: r.app_slug,
        calls: r.calls,
        gross_minor: r.gross_cents,
        fee_minor: r.fee_cents,
        model_cost_minor: r.model_cost_cents,
        model_cost_micros: r.model_cost_micros,
        model_cost_from_credits_minor: r.model_cost_from_credits_cents,
        margin_micros: r.margin_micros,
      });
    for (const s of block.subscriptions)
      add(c, 'subscription', s.net_cents, {
        date: s.date,
        description: `Subscription payment to ${s.app_name}`,
        app: s.app_slug,
        plan: s.plan,
        gross_minor: s.gross_cents,
        fee_minor: s.fee_cents,
        reference: s.invoice_id,
      });
    for (const r of block.refunds_seen)
      add(c, 'refund_seen', r.amount_cents, {
        date: r.date,
        description: r.reference?.startsWith('dispute-won:')
          ? 'Dispute of a subscription payment won: the payment came back to the platform'
          : r.reference?.startsWith('dispute:')
            ? 'Subscription payment disputed by the subscriber (your earnings keep it)'
            : 'Subscription payment refunded to the subscriber (your earnings keep it)',
        app: r.app_slug,
        plan: r.plan,
        reference: r.reference,
      });
    for (const p of block.payouts) add(c, p.kind, p.earnings_cents, { date: p.date, description: p.description, gross_minor: p.amount_cents });
    for (const o of block.other) add(c, 'other', o.amount_cents, { date: o.date, description: o.description, reference: o.kind });
    add(c, 'total', block.net_cents, {
      description: 'Net revenue of the month',
      gross_minor: block.gross_cents,
      fee_minor: block.fee_cents,
      model_cost_minor: block.model_cost_cents,
      model_cost_micros: block.model_cost_micros,
      model_cost_from_credits_minor: block.model_cost_from_credits_cents,
      margin_micros: block.margin_micros,
    });
    add(c, 'closing_balance', block.closing_balance_cents, { date: statement.to });
  }

  return [STATEMENT_CSV_COLUMNS.join(','), ...lines.map((line) => STATEMENT_CSV_COLUMNS.map((column) => cell(line[column])).join(','))]
    .map((l) => `${l}\r\n`)
    .join('');
}
