// Issue 61, trap 6: a creator's statement, its CSV and the app's analytics say the same of the same
// calls, to the micro-dollar. The ledger posts model costs in whole cents from a running total of
// micro-dollars, so a month of sub-cent costs could show a model cost of 0 beside analytics' $0.00306;
// the statement now carries the calls' own model cost (model_cost_micros), as analytics adds it.
import { afterAll, describe, expect, it } from 'vitest';
import { createPaidTestContext } from '../../test-support/app.ts';
import { callCompletions } from '../../test-support/paid-call.ts';

const ctx = await createPaidTestContext({ PLATFORM_FEE_BPS: '1000', SIGNUP_CREDITS_CENTS: '1000' });
afterAll(() => ctx.close());

const month = new Date().toISOString().slice(0, 7);

/** The CSV's lines as objects keyed by the header. */
function csvRecords(text: string): Record<string, string>[] {
  const [header, ...lines] = text.trimEnd().split('\r\n');
  const columns = header!.split(',');
  // The figures compared here are numbers and slugs: no quoted cells among them.
  return lines.map((line) => Object.fromEntries(line.split(',').map((cell, index) => [columns[index]!, cell])));
}

describe("a creator's statement, its CSV and analytics (issue 61)", () => {
  it('agree on calls, gross, fee, model cost and margin to the micro-dollar for the same period', async () => {
    const creator = await ctx.newUser('creator');
    const caller = await ctx.newUser('caller');
    const { slug } = await ctx.liveApp(creator.token, { name: 'Sub-cent Model Cost', price_cents: 5 });
    await callCompletions(ctx.app, slug, caller.token, 3);

    // What the calls themselves recorded.
    const [recorded] = await ctx.sql<{ calls: string; micros: string }>(
      "SELECT count(*) AS calls, sum(i.model_cost_micros) AS micros FROM invocations i JOIN apps a ON a.id = i.app_id WHERE a.slug = $1 AND i.status = 'success'",
      [slug],
    );
    const micros = Number(recorded!.micros);
    // Below a cent a call: the case where whole-cent postings and analytics part ways.
    expect(micros).toBeGreaterThan(0);
    expect(micros / 3).toBeLessThan(10_000);

    const usage = (await ctx.api('GET', `/api/app/${slug}/analytics/usage/?days=7`, creator.token)).json();
    const statement = (await ctx.api('GET', `/api/billing/statements/${month}/?role=creator`, creator.token)).json();
    const csv = await ctx.api('GET', `/api/billing/statements/${month}/csv/?role=creator`, creator.token);
    expect(csv.statusCode).toBe(200);

    const block = statement.creator.find((b: { currency: string }) => b.currency === 'usd');
    const line = block.calls.find((c: { app_slug: string }) => c.app_slug === slug);
    const rows = csvRecords(csv.body);
    const csvLine = rows.find((r) => r.section === 'calls' && r.app === slug)!;
    const csvTotal = rows.find((r) => r.section === 'total' && r.currency === 'USD')!;

    // Calls.
    expect(usage.total_invocations).toBe(3);
    expect(line.calls).toBe(3);
    expect(Number(csvLine.calls)).toBe(3);
    // Gross and fee, in cents.
    expect(line.gross_cents).toBe(usage.total_revenue_cents);
    expect(Number(csvLine.gross_minor)).toBe(usage.total_revenue_cents);
    expect(line.fee_cents).toBe(usage.total_platform_fee_cents);
    expect(Number(csvLine.fee_minor)).toBe(usage.total_platform_fee_cents);
    // Model cost, in micro-dollars: the calls', analytics', the statement's and the CSV's.
    expect(usage.total_model_cost_micros).toBe(micros);
    expect(usage.total_model_cost).toBe(micros / 1_000_000);
    expect(line.model_cost_micros).toBe(micros);
    expect(block.model_cost_micros).toBe(micros);
    expect(Number(csvLine.model_cost_micros)).toBe(micros);
    expect(Number(csvTotal.model_cost_micros)).toBe(micros);
    // The margin (gross − fee − model cost), analytics' total_net, to the micro-dollar.
    const margin = (usage.total_revenue_cents - usage.total_platform_fee_cents) * 10_000 - micros;
    expect(Math.round(usage.total_net * 1_000_000)).toBe(margin);
    expect(line.margin_micros).toBe(margin);
    expect(block.margin_micros).toBe(margin);
    expect(Number(csvLine.margin_micros)).toBe(margin);
    expect(Number(csvTotal.margin_micros)).toBe(margin);
    // The ledger's whole cents stay what they are, and never less than the exact cost rounds down to.
    expect(line.model_cost_cents).toBeGreaterThanOrEqual(Math.floor(micros / 10_000));
  });
});
