// SQL of the webhooks feature: endpoints, alert settings, the delivery log; the outbox's fan-out and
// the claiming of due deliveries (FOR UPDATE SKIP LOCKED, so processes never take the same one).
import type { Queryable } from '../db/client.ts';

export interface EndpointRow {
  id: string;
  user_id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  secret_sealed: string;
  failing_since: Date | null;
  failing_reason: string | null;
  created_at: Date;
}

export async function selectEndpoints(db: Queryable, userId: string): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE user_id = $1 ORDER BY created_at, id', [userId]);
  return rows;
}

export async function selectEndpoint(db: Queryable, userId: string, id: string): Promise<EndpointRow | null> {
  const { rows } = await db.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1 AND user_id = $2', [id, userId]);
  return rows[0] ?? null;
}

export async function countEndpoints(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1', [userId]);
  return rows[0]?.n ?? 0;
}

export async function insertEndpoint(
  db: Queryable,
  endpoint: { userId: string; url: string; description: string; events: string[]; enabled: boolean; secretSealed: string },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (user_id, url, description, events, enabled, secret_sealed) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [endpoint.userId, endpoint.url, endpoint.description, endpoint.events, endpoint.enabled, endpoint.secretSealed],
  );
  return rows[0]!;
}

export async function updateEndpoint(
  db: Queryable,
  userId: string,
  id: string,
  changes: { url?: string; description?: string; events?: string[]; enabled?: boolean; secretSealed?: string },
): Promise<EndpointRow | null> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET url = coalesce($3, url), description = coalesce($4, description), events = coalesce($5, events),
       enabled = coalesce($6, enabled), secret_sealed = coalesce($7, secret_sealed),
       -- Turning an endpoint on again is the owner's word that it works: it is no longer shown failing.
       failing_since = CASE WHEN $6 IS TRUE THEN NULL ELSE failing_since END,
       failing_reason = CASE WHEN $6 IS TRUE THEN NULL ELSE failing_reason END,
       updated_at = now()
     WHERE id = $1 AND user_id = $2 RETURNING *`,
    [id, userId, changes.url ?? null, changes.description ?? null, changes.events ?? null, changes.enabled ?? null, changes.secretSealed ?? null],
  );
  return rows[0] ?? null;
}

export async function deleteEndpoint(db: Queryable, userId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhook_endpoints WHERE id = $1 AND user_id = $2', [id, userId]);
  return rowCount > 0;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  attempted_at: Date;
  ok: boolean;
  status_code: number | null;
  latency_ms: number;
  response_snippet: string;
  error: string | null;
  manual: boolean;
  delivery_status: 'pending' | 'delivered' | 'failed';
}

export async function selectAttempts(db: Queryable, endpointId: string, limit: number): Promise<AttemptRow[]> {
  const { rows } = await db.query<AttemptRow>(
    `SELECT a.id, a.delivery_id, d.event_id, e.type AS event_type, a.attempted_at, a.ok, a.status_code, a.latency_ms, a.response_snippet,
            a.error, a.manual, d.status AS delivery_status
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhook_events e ON e.id = d.event_id
      WHERE a.endpoint_id = $1 ORDER BY a.attempted_at DESC, a.id LIMIT $2`,
    [endpointId, limit],
  );
  return rows;
}

/** Send again: the delivery is due now (its webhook-id stays the event's). Null when it is not this endpoint's. */
export async function redueDelivery(db: Queryable, endpointId: string, deliveryId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = clock_timestamp(), manual_pending = true
      WHERE id = $1 AND endpoint_id = $2`,
    [deliveryId, endpointId],
  );
  return rowCount > 0;
}

export interface AlertSettingsRow {
  credits_low_cents: number | null;
  credits_low_percent: number | null;
  error_rate_percent: number | null;
  mail_events: string[];
}

export async function selectAlertSettings(db: Queryable, userId: string): Promise<AlertSettingsRow> {
  const { rows } = await db.query<AlertSettingsRow>(
    'SELECT credits_low_cents, credits_low_percent, error_rate_percent, mail_events FROM webhook_alert_settings WHERE user_id = $1',
    [userId],
  );
  return rows[0] ?? { credits_low_cents: null, credits_low_percent: null, error_rate_percent: null, mail_events: [] };
}

export async function upsertAlertSettings(db: Queryable, userId: string, settings: AlertSettingsRow): Promise<void> {
  await db.query(
    `INSERT INTO webhook_alert_settings (user_id, credits_low_cents, credits_low_percent, error_rate_percent, mail_events) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (user_id) DO UPDATE SET credits_low_cents = $2, credits_low_percent = $3, error_rate_percent = $4, mail_events = $5, updated_at = now()`,
    [userId, settings.credits_low_cents, settings.credits_low_percent, settings.error_rate_percent, settings.mail_events],
  );
}

// ---- The worker's ----

/** Whether any event waits to be fanned out: one cheap read, so an idle worker opens no transaction. */
export async function hasEventsToFanOut(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ waiting: boolean }>('SELECT EXISTS (SELECT 1 FROM webhook_events WHERE fanned_out_at IS NULL) AS waiting');
  return rows[0]?.waiting === true;
}

/**
 * Fans out up to `limit` events written but not yet fanned out: one delivery per enabled endpoint of
 * the recipient that wants the event, and one mail when the recipient asked for it by mail (`mail`:
 * the server sends mail). Events for an app's audience go to its active subscribers and to whoever
 * called it in the last 30 days. All in the caller's transaction, events claimed with SKIP LOCKED.
 */
export async function fanOutEvents(tx: Queryable, limit: number, mail: boolean): Promise<number> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM webhook_events WHERE fanned_out_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  if (rows.length === 0) return 0;
  const ids = rows.map((row) => row.id);
  await tx.query(
    `WITH events AS (SELECT * FROM webhook_events WHERE id = ANY($1::uuid[])),
     recipients AS (
       SELECT e.id AS event_id, e.type, e.user_id FROM events e WHERE e.user_id IS NOT NULL
       UNION
       SELECT e.id, e.type, s.user_id FROM events e JOIN subscriptions s ON s.app_id = e.audience_app_id
        WHERE e.audience_app_id IS NOT NULL AND s.status IN ('active', 'trialing', 'past_due')
       UNION
       SELECT e.id, e.type, i.caller_id FROM events e JOIN invocations i ON i.app_id = e.audience_app_id
        WHERE e.audience_app_id IS NOT NULL AND i.caller_id IS NOT NULL AND i.created_at > now() - interval '30 days'
     )
     INSERT INTO webhook_deliveries (event_id, user_id, endpoint_id)
     SELECT r.event_id, r.user_id, w.id FROM recipients r JOIN webhook_endpoints w ON w.user_id = r.user_id AND w.enabled AND r.type = ANY(w.events)
     UNION ALL
     SELECT r.event_id, r.user_id, NULL FROM recipients r JOIN webhook_alert_settings m ON m.user_id = r.user_id AND r.type = ANY(m.mail_events)
      WHERE $2::boolean
     ON CONFLICT DO NOTHING`,
    [ids, mail],
  );
  await tx.query('UPDATE webhook_events SET fanned_out_at = clock_timestamp() WHERE id = ANY($1::uuid[])', [ids]);
  return ids.length;
}

export interface ClaimedDelivery {
  id: string;
  event_id: string;
  user_id: string;
  endpoint_id: string | null;
  attempts: number;
  created_at: Date;
  manual_pending: boolean;
  type: string;
  data: Record<string, unknown>;
  event_created_at: Date;
  url: string | null;
  secret_sealed: string | null;
  email: string | null;
}

/**
 * Claims up to `limit` due deliveries: each becomes due again `leaseSeconds` later, so a process that
 * dies while sending leaves it to another (which sends it again with the same webhook-id).
 */
export async function claimDueDeliveries(db: Queryable, limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedDelivery>(
    `WITH due AS (
       SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= clock_timestamp()
        ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_deliveries d SET next_attempt_at = clock_timestamp() + make_interval(secs => $2), attempts = d.attempts + 1,
              first_attempt_at = coalesce(d.first_attempt_at, clock_timestamp())
         FROM due WHERE d.id = due.id
       RETURNING d.id, d.event_id, d.user_id, d.endpoint_id, d.attempts, d.created_at, d.manual_pending
     )
     SELECT c.*, e.type, e.data, e.created_at AS event_created_at, w.url, w.secret_sealed, u.email
       FROM claimed c JOIN webhook_events e ON e.id = c.event_id
       LEFT JOIN webhook_endpoints w ON w.id = c.endpoint_id
       JOIN users u ON u.id = c.user_id`,
    [limit, leaseSeconds],
  );
  return rows;
}

export async function recordAttempt(
  db: Queryable,
  delivery: ClaimedDelivery,
  attempt: { ok: boolean; statusCode: number | null; latencyMs: number; snippet: string; error: string | null },
): Promise<void> {
  await db.query(
    `INSERT INTO webhook_attempts (delivery_id, endpoint_id, ok, status_code, latency_ms, response_snippet, error, manual)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [delivery.id, delivery.endpoint_id, attempt.ok, attempt.statusCode, attempt.latencyMs, attempt.snippet, attempt.error, delivery.manual_pending],
  );
}

/** Gives a delivery up; its endpoint is failing (true when it was not already). */
export async function giveUp(db: Queryable, delivery: ClaimedDelivery, reason: string): Promise<boolean> {
  await db.query("UPDATE webhook_deliveries SET status = 'failed', manual_pending = false WHERE id = $1", [delivery.id]);
  if (!delivery.endpoint_id) return false;
  const { rowCount } = await db.query(
    'UPDATE webhook_endpoints SET failing_since = clock_timestamp(), failing_reason = $2 WHERE id = $1 AND failing_since IS NULL',
    [delivery.endpoint_id, reason],
  );
  return rowCount > 0;
}

/**
 * One statement per attempt (the worker keeps its share of the pool small): the attempt in the log,
 * and the delivery delivered (its endpoint no longer failing) or due again after `retryDelaySeconds`.
 */
export async function recordOutcome(
  db: Queryable,
  delivery: ClaimedDelivery,
  attempt: { ok: boolean; statusCode: number | null; latencyMs: number; snippet: string; error: string | null },
  retryDelaySeconds: number,
): Promise<void> {
  await db.query(
    `WITH attempt AS (
       INSERT INTO webhook_attempts (delivery_id, endpoint_id, ok, status_code, latency_ms, response_snippet, error, manual)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ), delivery AS (
       UPDATE webhook_deliveries SET manual_pending = false,
              status = CASE WHEN $3 THEN 'delivered' ELSE status END,
              delivered_at = CASE WHEN $3 THEN clock_timestamp() ELSE delivered_at END,
              next_attempt_at = CASE WHEN $3 THEN next_attempt_at ELSE clock_timestamp() + make_interval(secs => $9) END
        WHERE id = $1 AND status = 'pending'
     )
     UPDATE webhook_endpoints SET failing_since = NULL, failing_reason = NULL WHERE $3 AND id = $2 AND failing_since IS NOT NULL`,
    [
      delivery.id,
      delivery.endpoint_id,
      attempt.ok,
      attempt.statusCode,
      attempt.latencyMs,
      attempt.snippet,
      attempt.error,
      delivery.manual_pending,
      retryDelaySeconds,
    ],
  );
}
