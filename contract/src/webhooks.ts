// Signed webhooks and alerts (issue 62): an account's endpoints, the events they may want, the
// delivery log, and the thresholds and mail an account asks for. Deliveries follow the Standard
// Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature "v1,<base64 HMAC-SHA256>").
import { type Static, Type } from 'typebox';
import { NullableDateTime } from './common.ts';

/** Every event an endpoint or mail may ask for. Each carries ids and amounts, never secrets or prompts. */
export const WEBHOOK_EVENT_TYPES = [
  'credits.low',
  'spend_cap.reached',
  'key.rate_limited',
  'topup.succeeded',
  'subscription.created',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.canceled',
  'payout.paid',
  'payout.failed',
  'refund.created',
  'dispute.created',
  'dispute.closed',
  'price.changed',
  'app.error_rate',
  'statement.ready',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WebhookEventTypeSchema = Type.Unsafe<WebhookEventType>(Type.String({ enum: [...WEBHOOK_EVENT_TYPES], description: 'An event type' }));

export const WebhookEndpoint = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String({ description: 'Where deliveries are POSTed' }),
  description: Type.String(),
  events: Type.Array(WebhookEventTypeSchema, { description: 'The events delivered to this endpoint' }),
  enabled: Type.Boolean({ description: 'false: nothing new is delivered' }),
  failing_since: NullableDateTime({
    description: 'When a delivery gave up after retrying for 24 hours; null once one succeeds again',
  }),
  failing_reason: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** The answer to creating an endpoint (or rolling its secret): the only time the signing secret is shown. */
export const WebhookEndpointCreated = Type.Object({
  ...WebhookEndpoint.properties,
  secret: Type.String({ description: 'whsec_ + base64: the Standard Webhooks signing secret, shown once' }),
});
export type WebhookEndpointCreated = Static<typeof WebhookEndpointCreated>;

export const WebhookEndpointList = Type.Array(WebhookEndpoint);

const endpointFields = {
  url: Type.String({ minLength: 1, maxLength: 2000, description: 'https:// URL (http:// only outside production mode or with ALLOW_PRIVATE_WEBHOOK_URLS)' }),
  description: Type.String({ maxLength: 200 }),
  events: Type.Array(WebhookEventTypeSchema, { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true }),
  enabled: Type.Boolean(),
};

export const WebhookEndpointCreate = Type.Object(
  {
    url: endpointFields.url,
    events: endpointFields.events,
    description: Type.Optional(endpointFields.description),
    enabled: Type.Optional(endpointFields.enabled),
  },
  { additionalProperties: false },
);
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreate>;

export const WebhookEndpointUpdate = Type.Object(
  {
    url: Type.Optional(endpointFields.url),
    events: Type.Optional(endpointFields.events),
    description: Type.Optional(endpointFields.description),
    enabled: Type.Optional(endpointFields.enabled),
  },
  { additionalProperties: false },
);
export type WebhookEndpointUpdate = Static<typeof WebhookEndpointUpdate>;

export const WebhookEndpointParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const WebhookDeliveryParams = Type.Object({ id: Type.String({ format: 'uuid' }), delivery_id: Type.String({ format: 'uuid' }) });

/** One attempt of one delivery, as the endpoint's delivery log shows it. */
export const WebhookAttempt = Type.Object({
  id: Type.String({ format: 'uuid' }),
  delivery_id: Type.String({ format: 'uuid' }),
  event_id: Type.String({ format: 'uuid', description: 'The webhook-id header of the delivery: the same on every attempt' }),
  event_type: WebhookEventTypeSchema,
  attempted_at: Type.String({ format: 'date-time' }),
  ok: Type.Boolean(),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: "The endpoint's HTTP status; null when none came (refused, timeout, network error)" }),
  latency_ms: Type.Integer(),
  response_snippet: Type.String({ description: 'The first 500 characters of the answer' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed, when it did' }),
  manual: Type.Boolean({ description: 'Sent again by the owner' }),
  delivery_status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
});
export type WebhookAttempt = Static<typeof WebhookAttempt>;
export const WebhookAttemptList = Type.Array(WebhookAttempt);

/** Thresholds and mail: what an account asks to be told of besides its endpoints. */
export const WebhookAlertSettings = Type.Object({
  credits_low_cents: Type.Union([Type.Integer({ minimum: 0, maximum: 100_000_000_000 }), Type.Null()], {
    description: 'credits.low fires when the credits fall below this many cents (once per crossing); null: off',
  }),
  credits_low_percent: Type.Union([Type.Integer({ minimum: 1, maximum: 100 }), Type.Null()], {
    description: 'Or below this percentage of the last top-up; null: off',
  }),
  error_rate_percent: Type.Union([Type.Integer({ minimum: 1, maximum: 100 }), Type.Null()], {
    description: 'app.error_rate fires when one of your apps fails more than this share of its calls over 5 minutes (at least 5 calls); null: off',
  }),
  mail_events: Type.Array(WebhookEventTypeSchema, {
    uniqueItems: true,
    maxItems: WEBHOOK_EVENT_TYPES.length,
    description: 'Events also sent to your email when the server has SMTP_URL',
  }),
  mail_available: Type.Boolean({ description: 'Whether this server sends mail (SMTP_URL)' }),
});
export type WebhookAlertSettings = Static<typeof WebhookAlertSettings>;

export const WebhookAlertSettingsUpdate = Type.Object(
  {
    credits_low_cents: Type.Optional(WebhookAlertSettings.properties.credits_low_cents),
    credits_low_percent: Type.Optional(WebhookAlertSettings.properties.credits_low_percent),
    error_rate_percent: Type.Optional(WebhookAlertSettings.properties.error_rate_percent),
    mail_events: Type.Optional(WebhookAlertSettings.properties.mail_events),
  },
  { additionalProperties: false },
);
export type WebhookAlertSettingsUpdate = Static<typeof WebhookAlertSettingsUpdate>;
