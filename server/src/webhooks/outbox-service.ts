// The webhooks outbox's one writer (issue 62, decision 0095). Billing, the gateway and apps call it
// inside the transaction that makes the change an event describes: the event commits with the
// change or not at all, so a crash never loses one and a rolled-back change never sends one. It is
// one INSERT of one row (the endpoints are looked up later, by the delivery worker), so it adds one
// cheap statement to a transaction that exists anyway. It imports nothing but the database's type,
// so every feature may use it without a cycle.
import type { WebhookEventType } from '@tollbooth/contract';
import type { Queryable } from '../db/client.ts';

export interface WebhookEventInput {
  type: WebhookEventType;
  /** The one account told; or audienceAppId: every subscriber and recent caller of the app. */
  userId?: string;
  audienceAppId?: string;
  /** Ids and amounts only: never a secret, a prompt or an answer. */
  data: Record<string, string | number | boolean | null | object>;
  /** Once per key: a threshold's crossing, a window (key.rate_limited per hour), a Stripe object. */
  dedupeKey?: string;
}

/** Writes one event into the outbox in `tx`; false when its dedupe key was already written. */
export async function recordWebhookEvent(tx: Queryable, event: WebhookEventInput): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO webhook_events (type, user_id, audience_app_id, data, dedupe_key) VALUES ($1, $2, $3, $4::jsonb, $5)
     ON CONFLICT (dedupe_key) DO NOTHING`,
    [event.type, event.userId ?? null, event.audienceAppId ?? null, JSON.stringify(event.data), event.dedupeKey ?? null],
  );
  return rowCount > 0;
}
