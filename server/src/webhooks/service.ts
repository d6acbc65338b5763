// Webhook endpoints per account (issue 62): add, list, change, delete, roll the secret, the delivery
// log and "send again", and the account's thresholds and mail. Also the refusal alerts the gateway
// raises (key.rate_limited, spend_cap.reached), each written at most once per key and window.
import type {
  WebhookAlertSettings,
  WebhookAlertSettingsUpdate,
  WebhookAttempt,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointCreated,
  WebhookEndpointUpdate,
  WebhookEventType,
} from '@tollbooth/contract';
import { decryptSecret, encryptSecret } from '../crypto/secrets.ts';
import type { Database } from '../db/client.ts';
import type { Config } from '../platform/config.ts';
import { AppError, invalidParam, notFound } from '../platform/errors.ts';
import { BlockedAddressError, checkProviderUrl, SelfCallError } from '../providers/workflows/safe-http.ts';
import { recordWebhookEvent } from './outbox-service.ts';
import {
  type AttemptRow,
  countEndpoints,
  deleteEndpoint,
  type EndpointRow,
  insertEndpoint,
  redueDelivery,
  selectAlertSettings,
  selectAttempts,
  selectEndpoint,
  selectEndpoints,
  updateEndpoint,
  upsertAlertSettings,
} from './queries.ts';
import { newSigningSecret } from './signing.ts';

export { recordWebhookEvent } from './outbox-service.ts';

/** Endpoints one account may have. */
export const MAX_ENDPOINTS = 20;

const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: row.events as WebhookEventType[],
  enabled: row.enabled,
  failing_since: row.failing_since?.toISOString() ?? null,
  failing_reason: row.failing_reason,
  created_at: row.created_at.toISOString(),
});

const toAttempt = (row: AttemptRow): WebhookAttempt => ({
  ...row,
  event_type: row.event_type as WebhookEventType,
  attempted_at: row.attempted_at.toISOString(),
});

export function createWebhooksService({ db, config }: { db: Database; config: Config }) {
  /** Save-time rules; the same are checked again at every connection (sender.ts). */
  const checkUrl = async (value: string): Promise<string> => {
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      throw invalidParam('url', 'must be an https:// URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidParam('url', 'must be an https:// URL');
    if (url.protocol === 'http:' && config.production && !config.webhooks.allowPrivateUrls) throw invalidParam('url', 'must be https:// in production mode');
    if (url.username || url.password) throw invalidParam('url', 'must not contain credentials');
    try {
      await checkProviderUrl(url.toString(), config.webhooks.allowPrivateUrls, 'url');
    } catch (error) {
      if (error instanceof BlockedAddressError) {
        throw invalidParam(
          'url',
          `${error.message.replace(/^The provider URL points to/, 'points to').replace(/, which is not allowed$/, '')}, which is not allowed (ALLOW_PRIVATE_WEBHOOK_URLS)`,
        );
      }
      if (error instanceof SelfCallError) throw invalidParam('url', 'points to this Tollbooth server itself');
      if (error instanceof AppError) throw invalidParam('url', error.message.replace(/^url: /, ''));
      throw error;
    }
    return url.toString();
  };

  const owned = async (userId: string, id: string) => {
    const row = await selectEndpoint(db, userId, id);
    if (!row) throw notFound('Webhook endpoint not found');
    return row;
  };

  return {
    async list(userId: string): Promise<WebhookEndpoint[]> {
      return (await selectEndpoints(db, userId)).map(toEndpoint);
    },

    async create(userId: string, input: WebhookEndpointCreate): Promise<WebhookEndpointCreated> {
      const url = await checkUrl(input.url);
      if ((await countEndpoints(db, userId)) >= MAX_ENDPOINTS) throw invalidParam('url', `an account has at most ${MAX_ENDPOINTS} webhook endpoints`);
      const secret = newSigningSecret();
      const row = await insertEndpoint(db, {
        userId,
        url,
        description: input.description?.trim() ?? '',
        events: input.events,
        enabled: input.enabled ?? true,
        secretSealed: encryptSecret(config.secretKey, secret),
      });
      return { ...toEndpoint(row), secret };
    },

    async update(userId: string, id: string, input: WebhookEndpointUpdate): Promise<WebhookEndpoint> {
      await owned(userId, id);
      const url = input.url === undefined ? undefined : await checkUrl(input.url);
      const row = await updateEndpoint(db, userId, id, { url, description: input.description?.trim(), events: input.events, enabled: input.enabled });
      if (!row) throw notFound('Webhook endpoint not found');
      return toEndpoint(row);
    },

    async rollSecret(userId: string, id: string): Promise<WebhookEndpointCreated> {
      await owned(userId, id);
      const secret = newSigningSecret();
      const row = await updateEndpoint(db, userId, id, { secretSealed: encryptSecret(config.secretKey, secret) });
      if (!row) throw notFound('Webhook endpoint not found');
      return { ...toEndpoint(row), secret };
    },

    async remove(userId: string, id: string): Promise<void> {
      if (!(await deleteEndpoint(db, userId, id))) throw notFound('Webhook endpoint not found');
    },

    async attempts(userId: string, id: string, limit: number): Promise<WebhookAttempt[]> {
      await owned(userId, id);
      return (await selectAttempts(db, id, limit)).map(toAttempt);
    },

    async sendAgain(userId: string, id: string, deliveryId: string): Promise<void> {
      await owned(userId, id);
      if (!(await redueDelivery(db, id, deliveryId))) throw notFound('Delivery not found');
    },

    /** Sends a test event to the endpoint (a `topup.succeeded`-shaped ping is not sent: only events that happened are). */
    async readSettings(userId: string): Promise<WebhookAlertSettings> {
      const row = await selectAlertSettings(db, userId);
      return {
        credits_low_cents: row.credits_low_cents === null ? null : Number(row.credits_low_cents),
        credits_low_percent: row.credits_low_percent,
        error_rate_percent: row.error_rate_percent,
        mail_events: row.mail_events as WebhookEventType[],
        mail_available: config.mail.smtpUrl !== null,
      };
    },

    async updateSettings(userId: string, input: WebhookAlertSettingsUpdate): Promise<WebhookAlertSettings> {
      const current = await selectAlertSettings(db, userId);
      await upsertAlertSettings(db, userId, {
        credits_low_cents: input.credits_low_cents !== undefined ? input.credits_low_cents : current.credits_low_cents,
        credits_low_percent: input.credits_low_percent !== undefined ? input.credits_low_percent : current.credits_low_percent,
        error_rate_percent: input.error_rate_percent !== undefined ? input.error_rate_percent : current.error_rate_percent,
        mail_events: input.mail_events ?? current.mail_events,
      });
      return this.readSettings(userId);
    },

    /** The endpoint's secret, for its owner's own verification in tests (never answered by the API). */
    secretOf: async (userId: string, id: string) => decryptSecret(config.secretKey, (await owned(userId, id)).secret_sealed),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

/**
 * The gateway's refusals that are events: key.rate_limited (at most once an hour per key) and
 * spend_cap.reached (once per key and cap window: the UTC month, or day for a daily cap). Written
 * after the refusal, off the answer's path (the caller is not kept waiting), at most once per process
 * and window (a Set in memory), and once overall by the event's dedupe key.
 */
export function createCallAlerts(db: Database, onError: (error: unknown) => void) {
  const told = new Set<string>();
  const once = (dedupeKey: string, write: () => Promise<unknown>) => {
    if (told.has(dedupeKey)) return;
    if (told.size > 10_000) told.clear();
    told.add(dedupeKey);
    write().catch((error: unknown) => {
      told.delete(dedupeKey);
      onError(error);
    });
  };
  return {
    keyRateLimited(userId: string, apiKeyId: string, limitPerMinute: number, at = new Date()) {
      const hour = at.toISOString().slice(0, 13);
      const dedupeKey = `key.rate_limited:${apiKeyId}:${hour}`;
      once(dedupeKey, () =>
        recordWebhookEvent(db, {
          type: 'key.rate_limited',
          userId,
          data: { api_key_id: apiKeyId, limit_per_minute: limitPerMinute, hour: `${hour}:00Z` },
          dedupeKey,
        }),
      );
    },
    spendCapReached(userId: string, apiKeyId: string, window: 'month' | 'day', at = new Date()) {
      const period = window === 'day' ? at.toISOString().slice(0, 10) : at.toISOString().slice(0, 7);
      const dedupeKey = `spend_cap.reached:${apiKeyId}:${period}`;
      once(dedupeKey, () =>
        recordWebhookEvent(db, {
          type: 'spend_cap.reached',
          userId,
          data: { api_key_id: apiKeyId, cap: window === 'day' ? 'daily' : 'monthly', period },
          dedupeKey,
        }),
      );
    },
  };
}

export type CallAlerts = ReturnType<typeof createCallAlerts>;
