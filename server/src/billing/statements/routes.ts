// Monthly statements (issue 23 item 6): the months with activity, a month's statement as a
// caller or a creator, and the same as CSV. Thin: schema, auth, one service call (service.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, Statement, StatementMonths, StatementMonthsQuery, StatementParams, StatementQuery } from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../../auth/plugin.ts';
import { signedInRoutes } from '../../http/route-schema.ts';
import { STATEMENT_CSV_COLUMNS, statementCsv } from './csv.ts';
import type { StatementsService } from './service.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse };
const tags = ['billing'];
const MONTH = 'month is YYYY-MM in UTC, not after the current month (anything else: 400 naming `month`).';
const FIGURES =
  'Every figure is a sum of your ledger entries of the month (by the entry time, UTC), one block per currency, amounts in minor units of that currency; amounts of different currencies are never added. role=caller (default): your credits (opening and closing balance, top-ups with their Stripe receipt, refunds and disputes, calls per app) and your subscriptions paid by card. role=creator: your earnings (opening and closing balance, per-call revenue per app with platform fee and model cost, subscription payments, refunds your subscribers were given, payouts).';

export const statementsRoutes: FastifyPluginAsyncTypebox<{ statements: StatementsService }> = async (app, { statements }) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  const user = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).user.id;

  app.get(
    '/billing/statements/',
    signedIn({
      summary: 'The months you have statements for',
      description: 'The current month (UTC) and every earlier month with activity, newest first; with role, only that side of your money.',
      querystring: StatementMonthsQuery,
      response: { 200: StatementMonths, ...errors },
    }),
    async (request) => statements.listMonths(user(request), request.query.role),
  );

  app.get(
    '/billing/statements/:month/',
    signedIn({
      summary: 'Your statement of a month',
      description: `${FIGURES} ${MONTH}`,
      params: StatementParams,
      querystring: StatementQuery,
      response: { 200: Statement, ...errors },
    }),
    async (request) => statements.read(requireAuth(request).user, request.params.month, request.query.role),
  );

  app.get(
    '/billing/statements/:month/csv/',
    signedIn({
      summary: 'Your statement of a month as CSV',
      description: `The statement above, one line per figure or detail, saved as statement-{month}-{role}.csv. Columns: ${STATEMENT_CSV_COLUMNS.join(', ')}. amount_minor is the signed effect on the balance in minor units (for spend, the credits taken; for payout_sent, 0: gross_minor is then the amount transferred); amount is the same in the currency's major unit. ${MONTH}`,
      params: StatementParams,
      querystring: StatementQuery,
      response: {
        200: { description: 'The statement', content: { 'text/csv': { schema: Type.String({ description: 'CSV (RFC 4180) with a header row' }) } } },
        ...errors,
      },
    }),
    async (request, reply) => {
      const role = request.query.role ?? 'caller';
      const statement = await statements.read(requireAuth(request).user, request.params.month, role);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="statement-${statement.month}-${role}.csv"`)
        .send(statementCsv(statement));
    },
  );
};
