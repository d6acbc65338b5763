// Billing reads for the signed-in user: balances and their own ledger entries (service.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BillingBalance, ErrorResponse, LedgerPage, LedgerQuery } from '@tollbooth/contract';
import { requireAuth } from '../auth/plugin.ts';
import { sendPageHeaders } from '../http/pagination.ts';
import { signedInRoutes } from '../http/route-schema.ts';
import type { BillingService } from './service.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse };
const tags = ['billing'];

export const billingRoutes: FastifyPluginAsyncTypebox<{ billing: BillingService }> = async (app, { billing }) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  app.get(
    '/billing/balance/',
    signedIn({
      summary: "The signed-in user's credit and earnings balances",
      description: 'Integer cents, and dollars for display. An account that does not exist yet reads as 0.',
      response: { 200: BillingBalance, ...errors },
    }),
    async (request) => billing.readBalance(requireAuth(request).user.id),
  );

  app.get(
    '/billing/ledger/',
    signedIn({
      summary: "The signed-in user's ledger entries, newest first",
      description:
        'Entries on your credits and earnings accounts only. Page with `limit` (1–100, default 50) and `cursor` (or its first name `before`) = the previous page’s next_cursor (opaque; null on the last page, when has_more is false). The X-Has-More, X-Next-Cursor and Link headers say the same.',
      querystring: LedgerQuery,
      response: { 200: LedgerPage, ...errors },
    }),
    async (request, reply) => {
      const page = await billing.listLedgerEntries(requireAuth(request).user.id, request.query);
      sendPageHeaders(reply, { items: page.results, has_more: page.has_more, next_cursor: page.next_cursor });
      return page;
    },
  );
};
