// Creators get paid (issue 23): the connected Stripe account, earnings by state, Withdraw now and
// the payout schedule. Thin: schema, auth, one service call (service.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ConnectLink, ErrorResponse, PayoutSettings, PayoutsOverview, WithdrawResult } from '@tollbooth/contract';
import { requireAuth } from '../../auth/plugin.ts';
import { signedInRoutes } from '../../http/route-schema.ts';
import type { PayoutsService } from './service.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse, 502: ErrorResponse, 503: ErrorResponse };
const tags = ['billing'];

export const payoutsRoutes: FastifyPluginAsyncTypebox<{ payouts: PayoutsService }> = async (app, { payouts }) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  const user = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).user.id;

  app.get(
    '/billing/payouts/',
    signedIn({
      summary: 'Your Stripe account, earnings (pending, available, in transit, paid out) and payouts',
      description: 'Earnings become available PAYOUT_HOLD_DAYS after they were earned; amounts in minor units of `currency`.',
      response: { 200: PayoutsOverview, ...errors },
    }),
    async (request) => payouts.overview(user(request)),
  );
  app.post(
    '/billing/payouts/connect/',
    signedIn({
      summary: 'Connect a Stripe account (or finish its onboarding)',
      description: 'Makes your Stripe connected account on first use and answers a single-use Stripe-hosted onboarding link that comes back to /money.',
      response: { 200: ConnectLink, ...errors },
    }),
    async (request) => payouts.connect(user(request)),
  );
  app.delete(
    '/billing/payouts/connect/',
    signedIn({
      summary: 'Disconnect your Stripe account',
      description: 'No more payouts go to it; a payout already on its way ends paid or comes back to your earnings.',
      response: { 200: PayoutsOverview, ...errors },
    }),
    async (request) => payouts.disconnect(user(request)),
  );
  app.post(
    '/billing/payouts/refresh/',
    signedIn({
      summary: "Read your Stripe account's state from Stripe now",
      description: 'What the Money page calls when Stripe sends you back from onboarding.',
      response: { 200: PayoutsOverview, ...errors },
    }),
    async (request) => payouts.refreshAccount(user(request)),
  );
  app.patch(
    '/billing/payouts/settings/',
    signedIn({ summary: 'Set your payout schedule', body: PayoutSettings, response: { 200: PayoutsOverview, ...errors } }),
    async (request) => payouts.setSchedule(user(request), request.body.schedule),
  );
  app.post(
    '/billing/payouts/withdraw/',
    signedIn({
      summary: 'Withdraw now: your available earnings to your Stripe account',
      description:
        "One Stripe transfer per currency of everything available in it (at least that currency's minimum: PAYOUT_MINIMUM_CENTS for usd, PAYOUT_MINIMUMS for others), sent in the currency earned. While a payout is on its way, the same payout is answered again; nothing is ever sent twice.",
      response: { 200: WithdrawResult, ...errors },
    }),
    async (request) => payouts.withdraw(user(request)),
  );
};
