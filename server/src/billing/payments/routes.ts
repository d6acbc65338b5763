// The spec's billing calls (plans, subscriptions, payment methods, create-payment-intent), the
// owner's plan editor, credit top-ups and the Stripe webhook. Thin: schema, auth, one service call.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ErrorResponse,
  Package,
  PackageCreate,
  PackageUpdate,
  PaymentIntentCreate,
  PaymentIntentResponse,
  PaymentMethod,
  PaymentMethodCreate,
  PaymentMethodUpdate,
  SlugParams,
  Subscription,
  SubscriptionCreate,
  SubscriptionUpdate,
  TopUp,
  TopUpConfirm,
  TopUpCreate,
  TopUpResult,
} from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../../auth/plugin.ts';
import { noContent, signedInRoutes } from '../../http/route-schema.ts';
import { AppError } from '../../platform/errors.ts';
import { verifyWebhook } from '../../providers/stripe/verify-webhook.ts';
import type { PaymentsService } from './service.ts';
import type { WebhookHandler } from './webhook.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse, 503: ErrorResponse };
const tags = ['billing'];
const IdParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }), id: Type.String({ format: 'uuid' }) });

export const paymentsRoutes: FastifyPluginAsyncTypebox<{ payments: PaymentsService }> = async (app, { payments }) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  const user = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).user.id;

  app.get(
    '/app/:slug/packages/',
    signedIn({
      summary: "The application's plans",
      description: 'The owner also sees subscriber_count.',
      params: SlugParams,
      response: { 200: Type.Array(Package), ...errors },
    }),
    async (request) => payments.listPackages(request.params.slug, user(request)),
  );
  app.post(
    '/app/:slug/packages/',
    signedIn({
      summary: 'Create a plan (owner only)',
      description: 'price in dollars (≤ 2 decimals), stored as cents.',
      params: SlugParams,
      body: PackageCreate,
      response: { 201: Package, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await payments.createPackage(request.params.slug, user(request), request.body)),
  );
  app.patch(
    '/app/:slug/packages/:id/',
    signedIn({
      summary: 'Update a plan (owner only)',
      description: 'A price change applies to new subscriptions only.',
      params: IdParams,
      body: PackageUpdate,
      response: { 200: Package, ...errors },
    }),
    async (request) => payments.updatePackage(request.params.slug, user(request), request.params.id, request.body),
  );
  app.post(
    '/app/:slug/packages/:id/deactivate/',
    signedIn({ summary: 'Stop offering a plan (owner only)', params: IdParams, response: { 200: Package, ...errors } }),
    async (request) => payments.deactivatePackage(request.params.slug, user(request), request.params.id),
  );
  app.delete(
    '/app/:slug/packages/:id/',
    signedIn({
      summary: 'Delete a plan nobody subscribed to (owner only)',
      description: '409 when it has subscribers: deactivate it instead.',
      params: IdParams,
      response: { 204: Type.Null(), ...errors },
    }),
    noContent(async (request) => payments.deletePackage(request.params.slug, user(request), request.params.id)),
  );

  app.get(
    '/app/:slug/subscriptions/',
    signedIn({ summary: 'Your subscriptions to this application', params: SlugParams, response: { 200: Type.Array(Subscription), ...errors } }),
    async (request) => payments.listSubscriptions(request.params.slug, user(request)),
  );
  app.post(
    '/app/:slug/subscriptions/',
    signedIn({
      summary: 'Subscribe to a plan',
      description:
        'A free plan is active at once. A paid plan answers status incomplete and a client_secret: confirm the first payment with Stripe.js; Stripe then activates it.',
      params: SlugParams,
      body: SubscriptionCreate,
      response: { 201: Subscription, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await payments.subscribe(request.params.slug, user(request), request.body)),
  );
  app.get(
    '/app/:slug/subscriptions/:id/',
    signedIn({ summary: 'One of your subscriptions', params: IdParams, response: { 200: Subscription, ...errors } }),
    async (request) => payments.readSubscription(request.params.slug, user(request), request.params.id),
  );
  app.patch(
    '/app/:slug/subscriptions/:id/',
    signedIn({
      summary: 'Cancel at period end, or resume',
      params: IdParams,
      body: SubscriptionUpdate,
      response: { 200: Subscription, ...errors },
    }),
    async (request) => payments.updateSubscription(request.params.slug, user(request), request.params.id, request.body),
  );
  app.post(
    '/app/:slug/subscriptions/:id/cancel/',
    signedIn({ summary: 'Cancel at the end of the current period', params: IdParams, response: { 200: Subscription, ...errors } }),
    async (request) => payments.cancelSubscription(request.params.slug, user(request), request.params.id),
  );

  app.get(
    '/app/:slug/payment-methods/',
    signedIn({ summary: 'Your saved cards', params: SlugParams, response: { 200: Type.Array(PaymentMethod), ...errors } }),
    async (request) => payments.listPaymentMethods(request.params.slug, user(request)),
  );
  app.post(
    '/app/:slug/payment-methods/',
    signedIn({
      summary: 'Save the card of a confirmed SetupIntent',
      description: 'Only brand, last 4 digits, expiry and default are stored.',
      params: SlugParams,
      body: PaymentMethodCreate,
      response: { 201: PaymentMethod, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await payments.addPaymentMethod(request.params.slug, user(request), request.body)),
  );
  app.patch(
    '/app/:slug/payment-methods/:id/',
    signedIn({ summary: 'Make a card the default', params: IdParams, body: PaymentMethodUpdate, response: { 200: PaymentMethod, ...errors } }),
    async (request) => payments.makeDefaultPaymentMethod(request.params.slug, user(request), request.params.id),
  );
  app.delete(
    '/app/:slug/payment-methods/:id/',
    signedIn({ summary: 'Remove a card', params: IdParams, response: { 204: Type.Null(), ...errors } }),
    noContent(async (request) => payments.removePaymentMethod(request.params.slug, user(request), request.params.id)),
  );
  app.post(
    '/app/:slug/create-payment-intent/',
    signedIn({
      summary: 'A client secret for the browser to confirm with Stripe.js',
      description: 'amount 0: a SetupIntent to save a card. amount = plan price × 100 with package_id: the first payment of a subscription to that plan.',
      params: SlugParams,
      body: PaymentIntentCreate,
      response: { 200: PaymentIntentResponse, ...errors },
    }),
    async (request) => payments.createPaymentIntent(request.params.slug, user(request), request.body),
  );

  app.post(
    '/billing/top-ups/',
    signedIn({
      summary: 'Start a credits top-up (at least $5)',
      description: 'Confirm the answered client_secret with Stripe.js; credits arrive once the payment succeeds.',
      body: TopUpCreate,
      response: { 201: TopUp, ...errors },
    }),
    async (request, reply) => reply.status(201).send(await payments.createTopUp(user(request), request.body.amount_cents)),
  );
  app.post(
    '/billing/top-ups/confirm/',
    signedIn({
      summary: 'After the browser returns from Stripe: credit the top-up if it succeeded',
      description: 'Credits are added once, whether by this call or the webhook.',
      body: TopUpConfirm,
      response: { 200: TopUpResult, ...errors },
    }),
    async (request) => payments.confirmTopUp(user(request), request.body.payment_intent_id),
  );
};

/** The webhook reads its body raw (the signature is over the exact bytes), so it has its own JSON parser. */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookHandler; secret: string | null; connectSecret?: string | null }> = async (
  app,
  { webhooks, secret, connectSecret },
) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
  app.post(
    '/billing/webhook/',
    {
      schema: {
        tags,
        summary: 'Stripe webhook endpoint',
        description: 'Verified with STRIPE_WEBHOOK_SECRET (Stripe-Signature, 300 s tolerance); each event id is applied once; unknown events are acknowledged.',
        // Stripe's signature authenticates the call, not a bearer token.
        security: [],
        response: { 200: Type.Object({ received: Type.Boolean(), duplicate: Type.Boolean() }), 400: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request) => {
      if (!secret) throw new AppError('service_unavailable', 'Stripe webhooks are not configured');
      const raw = request.body as Buffer | undefined;
      let event: ReturnType<typeof verifyWebhook>;
      try {
        try {
          event = verifyWebhook(raw ?? Buffer.alloc(0), request.headers['stripe-signature'] as string | undefined, secret);
        } catch (error) {
          // Connected accounts' events come from the Connect endpoint, signed with its own secret.
          if (!connectSecret) throw error;
          event = verifyWebhook(raw ?? Buffer.alloc(0), request.headers['stripe-signature'] as string | undefined, connectSecret);
        }
      } catch (error) {
        throw new AppError('invalid_param', `Stripe-Signature: ${(error as Error).message}`, 'Stripe-Signature');
      }
      const applied = await webhooks.handle(event);
      return { received: true, duplicate: !applied };
    },
  );
};
