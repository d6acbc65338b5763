// The delivery worker (issue 62, decisions 0095, 0096): runs in every process that has WEBHOOK_WORKER
// on, off the paid call's path. Every POLL_MS while there is work (backing off to IDLE_POLL_MS while
// there is none, one or two cheap reads a round, so idle processes do not busy the database) it fans the outbox's new events out into deliveries (one
// transaction, events claimed with SKIP LOCKED), claims due deliveries (SKIP LOCKED; claiming moves
// each past its attempt's deadline, so a process that dies mid-send leaves it to another, which sends
// it again with the same webhook-id) and sends up to CONCURRENCY at once, each with its own deadline,
// so a hanging endpoint never holds the others. A failed attempt is retried with exponential backoff
// (30 s doubling, at most 6 h between attempts) until 24 h after the event; then the delivery gives
// up, the endpoint is marked failing (shown on its page) and its owner is mailed when SMTP_URL is set.
// Every ALERT_SCAN_MS it also checks the thresholds (credits.low, app.error_rate) and closed months
// (statement.ready), each firing once per crossing or window.
import nodemailer from 'nodemailer';
import { decryptSecret } from '../crypto/secrets.ts';
import type { Database } from '../db/client.ts';
import type { Config } from '../platform/config.ts';
import { type AlertSources, scanAlerts } from './alerts.ts';
import { type ClaimedDelivery, claimDueDeliveries, fanOutEvents, giveUp, hasEventsToFanOut, recordAttempt, recordOutcome } from './queries.ts';
import { type AttemptResult, sendSigned } from './sender.ts';
import { signedHeaders } from './signing.ts';

export const POLL_MS = 250;
/** The longest wait between rounds of an idle worker (doubling from POLL_MS): bounds commit-to-first-attempt. */
export const IDLE_POLL_MS = 2000;
/** The wait between rounds while deliveries are backed up (every slot busy, or the last claim was full). */
export const BACKLOG_POLL_MS = 20;

/** What a round found: nothing, some work, or more than it could take. */
type Round = 'idle' | 'busy' | 'more';
export const CONCURRENCY = 16;
/** The worker's statements at once: its share of the database pool stays small beside the paid calls'. */
export const WRITERS = 2;
export const ALERT_SCAN_MS = 15_000;
export const RETRY_FOR_MS = 24 * 3600_000;

/** Seconds before the next attempt after `attempts` failed ones: 30 s, 1 min, 2 min, … at most 6 h. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(30 * 2 ** Math.max(0, attempts - 1), 6 * 3600);
}

/** The body every attempt of one event carries (the same bytes each time). */
export function eventBody(delivery: { event_id: string; type: string; data: Record<string, unknown>; event_created_at: Date }): string {
  return JSON.stringify({ id: delivery.event_id, type: delivery.type, timestamp: delivery.event_created_at.toISOString(), data: delivery.data });
}

interface Logger {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export function createWebhookWorker({
  db,
  config,
  log,
  sources,
  now = () => Date.now(),
}: {
  db: Database;
  config: Config;
  log: Logger;
  sources: AlertSources;
  now?: () => number;
}) {
  const mailer = config.mail.smtpUrl ? nodemailer.createTransport(config.mail.smtpUrl) : null;
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let alertTimer: NodeJS.Timeout | null = null;
  let running = false;
  let stopped = false;
  // Past the attempt's deadline, with a margin for recording it; a slower record means a duplicate with the same webhook-id, never a loss.
  // A small semaphore over the worker's writes.
  let writers = 0;
  const waiting: (() => void)[] = [];
  const writing = async <T>(write: () => Promise<T>): Promise<T> => {
    while (writers >= WRITERS) await new Promise<void>((resolve) => waiting.push(resolve));
    writers++;
    try {
      return await write();
    } finally {
      writers--;
      waiting.shift()?.();
    }
  };
  // The claim's lease: the attempt's deadline and a second to record its outcome. A process killed
  // mid-send strands its claims this long (up to CONCURRENCY of them), which is what bounds commit →
  // first attempt after a crash; an outcome written later than that second means a second attempt
  // with the same webhook-id (at least once), not a lost one.
  const leaseSeconds = Math.ceil(config.webhooks.timeoutMs / 1000) + 1;

  const mail = async (to: string, subject: string, text: string) => {
    if (!mailer || !to) throw new Error('mail is not configured or the account has no email');
    await mailer.sendMail({ from: config.mail.from, to, subject, text });
  };

  const attemptOf = async (delivery: ClaimedDelivery): Promise<AttemptResult> => {
    const body = eventBody(delivery);
    if (delivery.endpoint_id === null) {
      const started = performance.now();
      try {
        const lines = Object.entries(delivery.data).map(([key, value]) => `${key}: ${String(value)}`);
        await mail(
          delivery.email ?? '',
          `${config.productName}: ${delivery.type}`,
          [`${delivery.type}`, '', ...lines, '', `${config.publicUrl}/settings/webhooks`].join('\n'),
        );
        return { ok: true, statusCode: null, latencyMs: Math.round(performance.now() - started), snippet: 'mailed', error: null };
      } catch (error) {
        return { ok: false, statusCode: null, latencyMs: Math.round(performance.now() - started), snippet: '', error: `mail: ${(error as Error).message}` };
      }
    }
    const secret = decryptSecret(config.secretKey, delivery.secret_sealed ?? '');
    return sendSigned({
      url: delivery.url ?? '',
      headers: signedHeaders(secret, delivery.event_id, body, now()),
      body,
      timeoutMs: config.webhooks.timeoutMs,
      allowPrivate: config.webhooks.allowPrivateUrls,
    });
  };

  const deliver = async (delivery: ClaimedDelivery) => {
    const result = await attemptOf(delivery);
    if (result.ok || now() - delivery.created_at.getTime() < RETRY_FOR_MS) {
      return writing(() => recordOutcome(db, delivery, result, retryDelaySeconds(delivery.attempts)));
    }
    await writing(() => recordAttempt(db, delivery, result));
    const reason = `gave up after ${delivery.attempts} attempts over 24 h: ${result.error ?? 'failed'}`;
    const newlyFailing = await writing(() => giveUp(db, delivery, reason));
    if (newlyFailing && mailer && delivery.email) {
      await mail(
        delivery.email,
        `${config.productName}: your webhook endpoint is failing`,
        `Deliveries to ${delivery.url} failed for 24 hours (${result.error ?? 'failed'}).\nIts delivery log and "Send again": ${config.publicUrl}/settings/webhooks`,
      ).catch((error: unknown) => log.warn({ err: error }, 'mailing a failing webhook endpoint’s owner failed'));
    }
  };

  /**
   * One round: fan out, then claim and start what the free slots allow. Resolves when the claims are
   * made (not the sends), with whether it found any work.
   */
  const round = async (): Promise<Round> => {
    if (running || stopped) return 'idle';
    running = true;
    try {
      // Every slot sending: look again soon, a send takes milliseconds (no query until a slot is free).
      if (inFlight.size >= CONCURRENCY) return 'more';
      let fanned = 0;
      if (await hasEventsToFanOut(db)) {
        let batch = 0;
        do {
          batch = await db.transaction((tx) => fanOutEvents(tx, 200, mailer !== null));
          fanned += batch;
        } while (!stopped && batch === 200);
      }
      const free = CONCURRENCY - inFlight.size;
      if (free <= 0 || stopped) return 'more';
      const claimed = await claimDueDeliveries(db, free, leaseSeconds);
      for (const delivery of claimed) {
        const task: Promise<void> = deliver(delivery)
          .then(() => undefined)
          .catch((error: unknown) => log.error({ err: error, delivery: delivery.id }, 'a webhook delivery failed to record'))
          .finally(() => inFlight.delete(task));
        inFlight.add(task);
      }
      // A full claim means more may be due: claim again soon rather than a POLL_MS later, so one process
      // sends hundreds a second (POLL_MS alone would cap it at CONCURRENCY per POLL_MS).
      if (claimed.length === free) return 'more';
      return fanned > 0 || claimed.length > 0 ? 'busy' : 'idle';
    } catch (error) {
      log.error({ err: error }, 'a webhook delivery round failed');
      return 'idle';
    } finally {
      running = false;
    }
  };

  // Rounds chained by timers: every POLL_MS while a round finds work, the wait doubling to IDLE_POLL_MS while none does.
  let waitMs = POLL_MS;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      const found = await round();
      waitMs = found === 'more' ? BACKLOG_POLL_MS : found === 'busy' ? POLL_MS : Math.min(waitMs * 2, IDLE_POLL_MS);
      schedule();
    }, waitMs);
    timer.unref();
  };

  const alerts = async () => {
    try {
      await scanAlerts(db, sources, new Date(now()), { mail: mailer !== null });
    } catch (error) {
      log.error({ err: error }, 'checking webhook thresholds failed');
    }
  };

  return {
    start() {
      if (timer) return;
      schedule();
      alertTimer = setInterval(() => void alerts(), ALERT_SCAN_MS);
      alertTimer.unref();
    },
    /** One fan-out-and-claim round and one threshold scan, now (tests; the timers do it otherwise). */
    async runOnce() {
      await alerts();
      await round();
      await Promise.all([...inFlight]);
    },
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (alertTimer) clearInterval(alertTimer);
      while (running) await new Promise((resolve) => setTimeout(resolve, 10));
      await Promise.all([...inFlight]);
      mailer?.close();
    },
  };
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's webhook delivery worker (tests run a round with runOnce()). */
    webhookWorker: WebhookWorker;
  }
}
