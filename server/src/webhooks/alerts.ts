// Thresholds and windows (issue 62, decision 0096): credits.low and app.error_rate fire once per
// crossing, statement.ready once per account and closed UTC month. They are read by the delivery
// worker's scan (every ALERT_SCAN_MS), never on the paid call's path: a state row per account, alert
// and subject records whether the threshold is crossed now, and an event is written in the same
// transaction as its change from not crossed to crossed (a conditional upsert, so of several
// processes scanning at once only one writes it). Billing's and analytics' figures come in through
// `sources` (app.ts gives them), so this feature imports neither.
import type { Database, Queryable } from '../db/client.ts';
import { recordWebhookEvent } from './outbox-service.ts';

export interface AlertSources {
  creditAlertInputs(userIds: string[]): Promise<{ user_id: string; credits_cents: number; last_top_up_cents: number | null }[]>;
  recentErrorRates(ownerIds: string[], since: Date): Promise<{ owner_id: string; app_id: string; slug: string; total: number; failed: number }[]>;
  usersWithStatementActivity(userIds: string[], from: Date, to: Date): Promise<string[]>;
}

export const ERROR_RATE_WINDOW_MS = 5 * 60_000;
/** app.error_rate needs at least this many calls in the window: one failure of one call is not a rate. */
export const ERROR_RATE_MIN_CALLS = 5;

/** Records whether a threshold is crossed; the crossing's number when it just became crossed, else null. */
async function crossing(tx: Queryable, userId: string, alert: string, subject: string, crossed: boolean): Promise<number | null> {
  const { rows } = await tx.query<{ crossings: number; crossed: boolean }>(
    `INSERT INTO webhook_alert_state (user_id, alert, subject, crossed, crossings) VALUES ($1, $2, $3, $4, CASE WHEN $4 THEN 1 ELSE 0 END)
     ON CONFLICT (user_id, alert, subject) DO UPDATE SET crossed = EXCLUDED.crossed, changed_at = now(),
       crossings = webhook_alert_state.crossings + CASE WHEN EXCLUDED.crossed THEN 1 ELSE 0 END
     WHERE webhook_alert_state.crossed IS DISTINCT FROM EXCLUDED.crossed
     RETURNING crossings, crossed`,
    [userId, alert, subject, crossed],
  );
  const row = rows[0];
  return row?.crossed ? row.crossings : null;
}

/** Users who want an event: an enabled endpoint subscribed to it, or (with mail) their mail list. */
async function usersWanting(db: Queryable, type: string, mail: boolean): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT user_id FROM webhook_endpoints WHERE enabled AND $1 = ANY(events)
     UNION SELECT user_id FROM webhook_alert_settings WHERE $2::boolean AND $1 = ANY(mail_events)`,
    [type, mail],
  );
  return rows.map((row) => row.user_id);
}

export async function scanAlerts(db: Database, sources: AlertSources, now: Date, options: { mail: boolean }): Promise<void> {
  await scanCreditsLow(db, sources, options);
  await scanErrorRates(db, sources, now, options);
  await scanStatements(db, sources, now, options);
}

async function scanCreditsLow(db: Database, sources: AlertSources, options: { mail: boolean }) {
  const { rows } = await db.query<{ user_id: string; credits_low_cents: number | null; credits_low_percent: number | null }>(
    `SELECT s.user_id, s.credits_low_cents, s.credits_low_percent FROM webhook_alert_settings s
      WHERE (s.credits_low_cents IS NOT NULL OR s.credits_low_percent IS NOT NULL) AND s.user_id = ANY($1::uuid[])`,
    [await usersWanting(db, 'credits.low', options.mail)],
  );
  if (rows.length === 0) return;
  const inputs = new Map((await sources.creditAlertInputs(rows.map((row) => row.user_id))).map((input) => [input.user_id, input]));
  for (const settings of rows) {
    const input = inputs.get(settings.user_id);
    if (!input) continue;
    const thresholds = [
      settings.credits_low_cents === null ? null : Number(settings.credits_low_cents),
      settings.credits_low_percent === null || input.last_top_up_cents === null
        ? null
        : Math.floor((input.last_top_up_cents * settings.credits_low_percent) / 100),
    ].filter((value): value is number => value !== null);
    if (thresholds.length === 0) continue;
    const threshold = Math.max(...thresholds);
    const low = input.credits_cents < threshold;
    await db.transaction(async (tx) => {
      const crossed = await crossing(tx, settings.user_id, 'credits.low', '', low);
      if (crossed === null) return;
      await recordWebhookEvent(tx, {
        type: 'credits.low',
        userId: settings.user_id,
        data: { credits_cents: input.credits_cents, threshold_cents: threshold, currency: 'usd' },
        dedupeKey: `credits.low:${settings.user_id}:${crossed}`,
      });
    });
  }
}

async function scanErrorRates(db: Database, sources: AlertSources, now: Date, options: { mail: boolean }) {
  const { rows } = await db.query<{ user_id: string; error_rate_percent: number }>(
    'SELECT user_id, error_rate_percent FROM webhook_alert_settings WHERE error_rate_percent IS NOT NULL AND user_id = ANY($1::uuid[])',
    [await usersWanting(db, 'app.error_rate', options.mail)],
  );
  if (rows.length === 0) return;
  const percentOf = new Map(rows.map((row) => [row.user_id, row.error_rate_percent]));
  const rates = await sources.recentErrorRates([...percentOf.keys()], new Date(now.getTime() - ERROR_RATE_WINDOW_MS));
  const seen = new Set(rates.map((rate) => `${rate.owner_id}:${rate.app_id}`));
  // Apps whose state says crossed but that had no call in the window are back below the threshold.
  const { rows: crossedApps } = await db.query<{ user_id: string; subject: string }>(
    "SELECT user_id, subject FROM webhook_alert_state WHERE alert = 'app.error_rate' AND crossed AND user_id = ANY($1::uuid[])",
    [[...percentOf.keys()]],
  );
  for (const stale of crossedApps) {
    if (!seen.has(`${stale.user_id}:${stale.subject}`)) await crossing(db, stale.user_id, 'app.error_rate', stale.subject, false);
  }
  for (const rate of rates) {
    const percent = percentOf.get(rate.owner_id)!;
    const above = rate.total >= ERROR_RATE_MIN_CALLS && rate.failed * 100 > rate.total * percent;
    await db.transaction(async (tx) => {
      const crossed = await crossing(tx, rate.owner_id, 'app.error_rate', rate.app_id, above);
      if (crossed === null) return;
      await recordWebhookEvent(tx, {
        type: 'app.error_rate',
        userId: rate.owner_id,
        data: {
          app_id: rate.app_id,
          slug: rate.slug,
          calls: rate.total,
          failed: rate.failed,
          threshold_percent: percent,
          window_seconds: ERROR_RATE_WINDOW_MS / 1000,
        },
        dedupeKey: `app.error_rate:${rate.app_id}:${crossed}`,
      });
    });
  }
}

async function scanStatements(db: Database, sources: AlertSources, now: Date, options: { mail: boolean }) {
  const monthEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const month = monthStart.toISOString().slice(0, 7);
  // Only those who wanted it before the month closed (a new endpoint is not sent last month's news).
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT DISTINCT w.user_id FROM webhook_endpoints w
      WHERE w.enabled AND 'statement.ready' = ANY(w.events) AND w.created_at < $1
        AND NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.dedupe_key = 'statement.ready:' || w.user_id || ':' || $2)
     UNION
     SELECT s.user_id FROM webhook_alert_settings s
      WHERE $3::boolean AND 'statement.ready' = ANY(s.mail_events)
        AND NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.dedupe_key = 'statement.ready:' || s.user_id || ':' || $2)`,
    [monthEnd, month, options.mail],
  );
  if (rows.length === 0) return;
  const active = await sources.usersWithStatementActivity(
    rows.map((row) => row.user_id),
    monthStart,
    monthEnd,
  );
  for (const userId of active) {
    await recordWebhookEvent(db, {
      type: 'statement.ready',
      userId,
      data: { month, from: monthStart.toISOString(), to: monthEnd.toISOString() },
      dedupeKey: `statement.ready:${userId}:${month}`,
    });
  }
}
