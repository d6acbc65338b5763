// The process's Prometheus metrics (issue 58): one registry per app, the families the issue lists,
// and the few recorders the paid call's layers call. Off (null, nothing recorded) unless METRICS_TOKEN
// or METRICS_PORT asks for /metrics; observability/ serves it and adds the figures read at scrape
// time (the money's health, the database pool).
//
// The paid call is the hot path (decision 0100): a recorder does no await and allocates nothing
// that matters. Its label children are made once and kept in small arrays and maps indexed by the
// few values a label can take, and count in plain numbers until a scrape (fast-metrics.ts, decision
// 0165), so a call costs a couple of lookups, additions and bucket searches; histograms have few
// buckets. Labels are bounded: app kind, caller protocol (path), outcome, provider kind, model (the
// model table's names), route template, status class, error type, currency. Never a key, user, email, prompt or answer; the app's slug only with
// METRICS_PER_APP=true (one series per app and path and outcome).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type CounterChild, FastCounter, FastHistogram, type HistogramChild } from './fast-metrics.ts';

/** The caller protocol a paid call came through (gateway/door-service.ts names it from the route). */
export type CallPath = 'dify' | 'openai' | 'responses' | 'embed';
export type AppKind = 'prompt' | 'workflow';
export type CallOutcomeLabel = 'success' | 'failed' | 'rejected';

const PATHS: readonly CallPath[] = ['dify', 'openai', 'responses', 'embed'];
const KINDS: readonly AppKind[] = ['prompt', 'workflow'];
const OUTCOMES: readonly CallOutcomeLabel[] = ['success', 'failed', 'rejected'];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** Seconds. The gateway's own added time is sub-millisecond when all is well. */
const ADDED_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.1, 0.5, 2.5];
const UPSTREAM_BUCKETS = [0.05, 0.25, 1, 2.5, 5, 10, 30, 60];
const HTTP_BUCKETS = [0.005, 0.025, 0.1, 0.5, 2.5, 10];
const BATCH_CALLS_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const BATCH_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2];

export interface MetricsOptions {
  /** METRICS_PER_APP: paid calls, tokens and model cost also by the app's slug. */
  perApp: boolean;
  /** Node's default metrics (memory, event-loop delay, GC, handles); off in tests that build many apps. */
  processMetrics?: boolean;
}

export function createMetrics({ perApp, processMetrics = true }: MetricsOptions) {
  const registry = new Registry();
  const registers = [registry];
  if (processMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  const httpDuration = new FastHistogram({
    name: 'tollbooth_http_request_duration_seconds',
    help: 'HTTP requests by route template and status class, and how long they took to answer',
    labelNames: ['method', 'route', 'status_class'],
    buckets: HTTP_BUCKETS,
    registers,
  });
  const paidCalls = new FastCounter({
    name: 'tollbooth_paid_calls_total',
    help: 'Paid calls by app kind, caller protocol (path) and outcome (success, failed, rejected)',
    labelNames: perApp ? ['app_kind', 'path', 'outcome', 'app'] : ['app_kind', 'path', 'outcome'],
    registers,
  });
  const added = new FastHistogram({
    name: 'tollbooth_gateway_added_seconds',
    help: "The gateway's own time in an answered paid call: the whole call less the upstream call",
    labelNames: ['app_kind', 'path'],
    buckets: ADDED_BUCKETS,
    registers,
  });
  const upstream = new FastHistogram({
    name: 'tollbooth_upstream_seconds',
    help: 'Upstream (model provider or workflow) call time of answered paid calls, by provider',
    labelNames: ['provider'],
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const firstToken = new FastHistogram({
    name: 'tollbooth_upstream_first_token_seconds',
    help: "Streams: time from the upstream request to the upstream's first answer event, by provider",
    labelNames: ['provider'],
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const tokens = new FastCounter({
    name: 'tollbooth_tokens_total',
    help: 'Tokens of answered paid calls by provider, model and direction (input, output)',
    labelNames: perApp ? ['provider', 'model', 'direction', 'app'] : ['provider', 'model', 'direction'],
    registers,
  });
  const modelCost = new FastCounter({
    name: 'tollbooth_model_cost_micros_total',
    help: "Model cost of answered paid calls on the platform's provider keys, in micro-dollars, by provider and model",
    labelNames: perApp ? ['provider', 'model', 'app'] : ['provider', 'model'],
    registers,
  });
  const payments = new FastCounter({
    name: 'tollbooth_caller_payments_micros_total',
    help: 'What callers paid for settled calls, in micro-units of the currency (a cent is 10,000)',
    labelNames: ['currency'],
    registers,
  });
  const fees = new FastCounter({
    name: 'tollbooth_platform_fees_micros_total',
    help: "The platform's fees of settled calls, in micro-units of the currency",
    labelNames: ['currency'],
    registers,
  });
  const creatorNet = new FastCounter({
    name: 'tollbooth_creator_net_micros_total',
    help: "Creators' net of settled calls (price less fee less model cost), in micro-units of the currency",
    labelNames: ['currency'],
    registers,
  });
  const batchCalls = new Histogram({
    name: 'tollbooth_settlement_batch_calls',
    help: 'Calls per settlement batch (one statement, one commit)',
    buckets: BATCH_CALLS_BUCKETS,
    registers,
  });
  const batchSeconds = new Histogram({
    name: 'tollbooth_settlement_batch_seconds',
    help: 'How long a settlement batch took to write and commit',
    buckets: BATCH_SECONDS_BUCKETS,
    registers,
  });
  const uncharged = new Counter({
    name: 'tollbooth_uncharged_answers_total',
    help: 'Answered paid calls that went free because their settlement failed (must stay 0)',
    registers,
  });
  const rateLimited = new FastCounter({
    name: 'tollbooth_rate_limit_refusals_total',
    help: 'Paid calls refused by a rate limit (429)',
    labelNames: ['path'],
    registers,
  });
  const spendRefused = new FastCounter({
    name: 'tollbooth_spend_refusals_total',
    help: 'Paid calls refused for money: a spend cap, a price cap, credits, the model cost not covered',
    labelNames: ['reason'],
    registers,
  });
  const upstreamErrors = new FastCounter({
    name: 'tollbooth_upstream_errors_total',
    help: 'Failed upstream calls by provider and error type',
    labelNames: ['provider', 'type'],
    registers,
  });
  const droppedSpans = new Counter({
    name: 'tollbooth_trace_spans_dropped_total',
    help: 'Trace spans dropped: the export queue was full or the OTLP endpoint refused or did not answer',
    registers,
  });

  // The label children of the paid call's path, made on first use and kept.
  const callChildren: (CounterChild | undefined)[] = new Array(KINDS.length * PATHS.length * OUTCOMES.length);
  const addedChildren: (HistogramChild | undefined)[] = new Array(KINDS.length * PATHS.length);
  const perAppCalls = new Map<string, CounterChild>();
  const byProvider = new Map<string, { upstream: HistogramChild; firstToken: HistogramChild; models: Map<string, ModelChildren> }>();
  const usd = { payments: payments.labels('usd'), fees: fees.labels('usd'), net: creatorNet.labels('usd') };
  interface ModelChildren {
    input: CounterChild;
    output: CounterChild;
    cost: CounterChild;
  }
  const index = (kind: AppKind, path: CallPath) => (kind === 'prompt' ? 0 : 1) * PATHS.length + PATHS.indexOf(path);
  const providerOf = (provider: string) => {
    let found = byProvider.get(provider);
    if (!found) {
      found = { upstream: upstream.labels(provider), firstToken: firstToken.labels(provider), models: new Map() };
      byProvider.set(provider, found);
    }
    return found;
  };
  const modelOf = (provider: string, model: string, app: string): ModelChildren => {
    const models = providerOf(provider).models;
    const key = perApp ? `${model}\u0000${app}` : model;
    let found = models.get(key);
    if (!found) {
      const labels = perApp ? [provider, model, app] : [provider, model];
      found = {
        input: perApp ? tokens.labels(provider, model, 'input', app) : tokens.labels(provider, model, 'input'),
        output: perApp ? tokens.labels(provider, model, 'output', app) : tokens.labels(provider, model, 'output'),
        cost: modelCost.labels(...labels),
      };
      models.set(key, found);
    }
    return found;
  };

  return {
    registry,

    /** The recorder of one route template's answered requests (observability/observe.ts makes one per route). */
    route(template: string): (method: string, status: number, seconds: number) => void {
      const byMethod = new Map<string, (HistogramChild | undefined)[]>();
      return (method, status, seconds) => {
        let children = byMethod.get(method);
        if (!children) {
          children = new Array(STATUS_CLASSES.length);
          byMethod.set(method, children);
        }
        const cls = Math.min(4, Math.max(0, Math.floor(status / 100) - 1));
        let child = children[cls];
        if (!child) {
          child = httpDuration.labels(method, template, STATUS_CLASSES[cls]!);
          children[cls] = child;
        }
        child.observe(seconds);
      };
    },

    /** A paid call ended with its outcome; `app` is its slug (used with METRICS_PER_APP only). */
    call(kind: AppKind, path: CallPath, outcome: CallOutcomeLabel, app: string): void {
      if (perApp) {
        const key = `${app}\u0000${kind}\u0000${path}\u0000${outcome}`;
        let child = perAppCalls.get(key);
        if (!child) {
          child = paidCalls.labels(kind, path, outcome, app);
          perAppCalls.set(key, child);
        }
        child.inc();
        return;
      }
      const at = index(kind, path) * OUTCOMES.length + OUTCOMES.indexOf(outcome);
      let child = callChildren[at];
      if (!child) {
        child = paidCalls.labels(kind, path, outcome);
        callChildren[at] = child;
      }
      child.inc();
    },

    /** An answered call: the gateway's added time and the upstream's, its tokens and model cost. */
    answered(
      kind: AppKind,
      path: CallPath,
      provider: string,
      model: string,
      app: string,
      addedSeconds: number,
      upstreamSeconds: number,
      inputTokens: number,
      outputTokens: number,
      modelCostMicros: number,
    ): void {
      const at = index(kind, path);
      let child = addedChildren[at];
      if (!child) {
        child = added.labels(kind, path);
        addedChildren[at] = child;
      }
      child.observe(addedSeconds);
      providerOf(provider).upstream.observe(upstreamSeconds);
      const children = modelOf(provider, model, app);
      if (inputTokens > 0) children.input.inc(inputTokens);
      if (outputTokens > 0) children.output.inc(outputTokens);
      if (modelCostMicros > 0) children.cost.inc(modelCostMicros);
    },

    /** A stream's first upstream answer event, this long after the upstream request. */
    firstToken(provider: string, seconds: number): void {
      providerOf(provider).firstToken.observe(seconds);
    },

    /** A settled paid call's money (billing/paid-call/service.ts), in cents; paid calls are in US dollars. */
    settled(chargeMicros: number, feeMicros: number, modelCostMicros: number): void {
      if (chargeMicros <= 0 && modelCostMicros <= 0) return;
      if (chargeMicros > 0) usd.payments.inc(chargeMicros);
      if (feeMicros > 0) usd.fees.inc(feeMicros);
      const net = chargeMicros - feeMicros - modelCostMicros;
      if (net > 0) usd.net.inc(net);
    },

    /** One settlement batch written (billing/paid-call/settlement-batcher.ts). */
    batch(calls: number, seconds: number): void {
      batchCalls.observe(calls);
      batchSeconds.observe(seconds);
    },

    /** An answered call went free: its settlement failed. */
    unchargedAnswer(): void {
      uncharged.inc();
    },

    rateLimited(path: CallPath): void {
      rateLimited.labels(path).inc();
    },

    /** A refusal for money: key_limit_exceeded, price_above_limit, insufficient_credits, model_cost_not_covered. */
    spendRefused(reason: string): void {
      spendRefused.labels(reason).inc();
    },

    upstreamError(provider: string, type: string): void {
      upstreamErrors.labels(provider, type).inc();
    },

    droppedSpans(count: number): void {
      droppedSpans.inc(count);
    },

    /** A gauge whose value is read at scrape time (observability/ registers the money's health this way). */
    gauge(name: string, help: string, labelNames: string[], collect: (gauge: Gauge) => void | Promise<void>): Gauge {
      return new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect() {
          return collect(this);
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The refusals counted as spend refusals (tollbooth_spend_refusals_total's reason). */
export const SPEND_REFUSALS: ReadonlySet<string> = new Set(['key_limit_exceeded', 'price_above_limit', 'insufficient_credits', 'model_cost_not_covered']);
