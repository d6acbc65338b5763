// The webhooks API (issue 62): an account's endpoints, their delivery log and "send again", and its
// thresholds and mail. Thin: the rules are in service.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  WebhookAlertSettings,
  WebhookAlertSettingsUpdate,
  WebhookAttemptList,
  WebhookDeliveryParams,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointParams,
  WebhookEndpointUpdate,
} from '@tollbooth/contract';
import { Type } from 'typebox';
import { requireAuth } from '../auth/plugin.ts';
import { SIGNED_IN_ERRORS as errors, noContent, signedInRoutes } from '../http/route-schema.ts';
import type { WebhooksService } from './service.ts';

const tags = ['webhooks'];
const SIGNING =
  'Deliveries are POSTed as JSON `{id, type, timestamp, data}` and signed by the Standard Webhooks scheme: headers `webhook-id` (the event id, the same on every retry), ' +
  '`webhook-timestamp` and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed by the secret), so the standardwebhooks libraries verify them as they are.';

export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  const signedIn = signedInRoutes(app.authenticate, tags);
  app.get(
    '/webhooks/endpoints/',
    signedIn({ summary: 'Your webhook endpoints, oldest first', response: { 200: WebhookEndpointList, ...errors } }),
    async (request) => webhooks.list(requireAuth(request).user.id),
  );

  app.post(
    '/webhooks/endpoints/',
    signedIn({
      summary: 'Add a webhook endpoint',
      description: `The answer carries the signing secret (\`whsec_…\`) this once. ${SIGNING} A private or loopback URL is refused unless the server allows it (ALLOW_PRIVATE_WEBHOOK_URLS); so is http:// in production mode.`,
      body: WebhookEndpointCreate,
      response: { 201: WebhookEndpointCreated, ...errors },
    }),
    async (request, reply) =>
      reply
        .status(201)
        .header('Cache-Control', 'no-store')
        .send(await webhooks.create(requireAuth(request).user.id, request.body)),
  );

  app.patch(
    '/webhooks/endpoints/:id/',
    signedIn({
      summary: 'Change a webhook endpoint',
      description: 'Turning it on (`enabled: true`) clears its failing mark.',
      params: WebhookEndpointParams,
      body: WebhookEndpointUpdate,
      response: { 200: WebhookEndpoint, ...errors },
    }),
    async (request) => webhooks.update(requireAuth(request).user.id, request.params.id, request.body),
  );

  app.delete(
    '/webhooks/endpoints/:id/',
    signedIn({
      summary: 'Delete a webhook endpoint and its delivery log',
      params: WebhookEndpointParams,
      response: { 204: Type.Null(), ...errors },
    }),
    noContent(async (request) => webhooks.remove(requireAuth(request).user.id, request.params.id)),
  );

  app.post(
    '/webhooks/endpoints/:id/secret/',
    signedIn({
      summary: 'Replace the signing secret',
      description: 'The new secret is in the answer this once; deliveries from now on are signed with it.',
      params: WebhookEndpointParams,
      response: { 200: WebhookEndpointCreated, ...errors },
    }),
    async (request, reply) => reply.header('Cache-Control', 'no-store').send(await webhooks.rollSecret(requireAuth(request).user.id, request.params.id)),
  );

  app.get(
    '/webhooks/endpoints/:id/attempts/',
    signedIn({
      summary: "The endpoint's delivery log, newest first",
      description: 'Each attempt: its status, latency, the first 500 characters of the answer, and why it failed.',
      params: WebhookEndpointParams,
      querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) }),
      response: { 200: WebhookAttemptList, ...errors },
    }),
    async (request) => webhooks.attempts(requireAuth(request).user.id, request.params.id, request.query.limit ?? 50),
  );

  app.post(
    '/webhooks/endpoints/:id/deliveries/:delivery_id/send-again/',
    signedIn({
      summary: 'Send a delivery again',
      description: 'It is attempted within a second, with the same webhook-id; the attempt appears in the log.',
      params: WebhookDeliveryParams,
      response: { 202: Type.Null(), ...errors },
    }),
    async (request, reply) => {
      await webhooks.sendAgain(requireAuth(request).user.id, request.params.id, request.params.delivery_id);
      return reply.status(202).send(null);
    },
  );

  app.get(
    '/webhooks/settings/',
    signedIn({ summary: 'Your thresholds and the events you get by mail', response: { 200: WebhookAlertSettings, ...errors } }),
    async (request) => webhooks.readSettings(requireAuth(request).user.id),
  );

  app.patch(
    '/webhooks/settings/',
    signedIn({
      summary: 'Change your thresholds and the events you get by mail',
      description:
        'credits.low: below `credits_low_cents`, or below `credits_low_percent` of your last top-up (the higher of the two when both are set). app.error_rate: over `error_rate_percent` of an app’s calls failing in 5 minutes. Each fires once per crossing.',
      body: WebhookAlertSettingsUpdate,
      response: { 200: WebhookAlertSettings, ...errors },
    }),
    async (request) => webhooks.updateSettings(requireAuth(request).user.id, request.body),
  );
};
