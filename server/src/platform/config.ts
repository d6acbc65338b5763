// Every environment variable Tollbooth reads, parsed, defaulted and validated once at start-up.
// The browser never sees this object; it gets the whitelisted subset from GET /api/config.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type MetricsConfig, readMetrics, readTracing, type TracingConfig } from './config-observability.ts';
import { isWeakSecretKey, parseSecretKey, readSecretKeyFile } from './config-secret-key.ts';
import { parseAdminEmails, parseSmtpUrl, parseTrustProxy } from './config-values.ts';
import { DEFAULT_MODEL_TABLE, type ModelTable, parseModelTable } from './model-table.ts';

export type { MetricsConfig, TracingConfig } from './config-observability.ts';
export { isWeakSecretKey, keepSecretKey } from './config-secret-key.ts';

/**
 * How long a process may answer from its copy of an app's call configuration (the gateway's call
 * targets, a workflow app's provider settings) after another process changed it.
 */
export const CALL_TARGET_TTL_MS = 1000;
/** SETTLEMENT_GATHER_MS unless set (decision 0061). */
const DEFAULT_SETTLEMENT_GATHER_MS = 12;

export interface Config {
  /**
   * NODE_ENV=production: secrets and the public URL must be given (never generated or defaulted),
   * checked at start before anything is written (productionProblems).
   */
  production: boolean;
  port: number;
  host: string;
  /** Directory for embedded data: PGlite files, generated secret key, uploads. */
  dataDir: string;
  /** node-postgres connection string; null means embedded PGlite under dataDir. */
  databaseUrl: string | null;
  /**
   * DATABASE_POOL_MODE: `session` (default: DATABASE_URL is PostgreSQL itself or a session pooler) or
   * `transaction` (DATABASE_URL is a transaction pooler such as PgBouncer's pool_mode=transaction:
   * no named prepared statements, and LISTEN on DATABASE_LISTEN_URL, a direct connection).
   */
  databasePoolMode: 'session' | 'transaction';
  /** DATABASE_LISTEN_URL: where the cache-invalidation LISTEN connects; null is DATABASE_URL. */
  databaseListenUrl: string | null;
  /**
   * DATABASE_READ_URL: a streaming replica of DATABASE_URL for analytics, catalog, statement and list
   * reads (db/reads.ts, decision 0130); null reads everything from DATABASE_URL. Refused without DATABASE_URL.
   */
  databaseReadUrl: string | null;
  /** READ_STATEMENT_TIMEOUT_MS: statement_timeout of every analytics, catalog, statement, list and export statement. */
  readStatementTimeoutMs: number;
  /** Externally visible base URL of this server, without a trailing slash. */
  publicUrl: string;
  /** 32-byte key for encrypting secrets at rest and signing cookies. */
  secretKey: Buffer;
  productName: string;
  oidc: {
    /** True when the embedded provider serves /oidc (no OIDC_ISSUER given). */
    embedded: boolean;
    issuer: string;
    clientId: string;
    audience: string;
    providerName: string;
  };
  signupCreditsCents: number;
  /** Seconds credit holds and Idempotency-Key claims of a crashed process stay locked (live ones are renewed). */
  claimLifetimeSeconds: number;
  mail: {
    /** smtp(s):// URL; set, new local accounts verify their email before sign-up credits are granted. */
    smtpUrl: string | null;
    from: string;
  };
  /** Local accounts created per client address per hour, and overall per hour. */
  signupLimits: { perAddressPerHour: number; perHour: number };
  uploads: { quotaBytes: number; retentionDays: number };
  /** RETENTION_DAYS: call detail (invocations, test runs) older than this is dropped, whole month partitions at a time; null keeps everything. */
  historyRetentionDays: number | null;
  /** Days a price increase waits before it reaches callers; decreases apply at once. */
  priceIncreaseNoticeDays: number;
  /** PRICE_LIMIT_DOLLARS in micro-dollars: the most a per-call price, minimum, cap or per-million-token rate may be. */
  priceLimitMicros: number;
  platformFeeBps: number;
  /** ADMIN_EMAILS, lower-cased: accounts whose verified email is listed see the operator's view. */
  adminEmails: string[];
  /** Creator payouts (billing/payouts/service.ts): hold before earnings are available, smallest transfer, how often the scheduler runs (0: never). */
  payouts: {
    holdDays: number;
    /** The smallest US-dollar transfer, in cents. */
    minimumCents: number;
    /** The smallest transfer in other currencies, in their minor units (PAYOUT_MINIMUMS, e.g. "jpy=1500,vnd=250000"); see payoutMinimum(). */
    minimums: Record<string, number>;
    sweepSeconds: number;
  };
  logLevel: string;
  stripe: {
    secretKey: string | null;
    publishableKey: string | null;
    webhookSecret: string | null;
    /** The Connect endpoint's signing secret (connected accounts' events), when it differs from webhookSecret. */
    connectWebhookSecret: string | null;
    /** Where the Stripe SDK sends its requests (host, port and protocol); null is Stripe itself. Tests point it at the loopback fake. */
    apiBase: string | null;
  };
  models: {
    openaiApiKey: string | null;
    openaiBaseUrl: string;
    anthropicApiKey: string | null;
    geminiApiKey: string | null;
    demoModel: boolean;
  };
  redisUrl: string | null;
  allowPrivateProviderUrls: boolean;
  /** Signed webhooks (webhooks/, issue 62). */
  webhooks: {
    /** ALLOW_PRIVATE_WEBHOOK_URLS: endpoints may be private or loopback addresses (and plain http in production mode). */
    allowPrivateUrls: boolean;
    /** WEBHOOK_TIMEOUT_MS: how long one delivery may take, connection to last byte read. */
    timeoutMs: number;
    /** WEBHOOK_WORKER: whether this process delivers (off: it only writes the outbox; another process delivers). */
    worker: boolean;
  };
  gateway: {
    /** Calls per minute per API key (or per user for access tokens). */
    rateLimitPerMinute: number;
    /** Calls per minute per user, across all their keys and tokens. */
    userRateLimitPerMinute: number;
    /** Management API (/api/...) requests per minute per signed-in user. */
    managementRateLimitPerMinute: number;
    /** Deadline of one upstream model or workflow call. */
    providerTimeoutMs: number;
    /**
     * How many answered calls may wait for their settlement commit at once (the answer goes out
     * before the commit while fewer are waiting; 0: every answer waits for its commit). A kill -9
     * leaves at most this many answered calls uncharged (docs/decisions/0024-answer-before-the-settlement-commit.md).
     */
    settlementWindowCalls: number;
    /**
     * SETTLEMENT_GATHER_MS: how long an answered call's settlement may wait for others to share its
     * statement and commit (0: written on the next turn of the event loop; decisions 0060, 0061).
     */
    settlementGatherMs: number;
    /**
     * ANSWER_JOURNAL_DIR: where processes journal the calls they answered before their settlement
     * commit, one directory per database inside it (decision 0042); null: beside an embedded
     * database, else the machine's temporary directory.
     */
    answerJournalDir: string | null;
    /** ANSWER_JOURNAL_COPY_AFTER_MS: how long an answered call's settlement may be late before the call is copied to answered_calls (decision 0042). */
    answerJournalCopyAfterMs: number;
    /** JSON overrides of the model-name → provider table, or null. */
    /** MODEL_TABLE parsed over the built-in table (the built-in table when unset). */
    modelTable: ModelTable;
  };
  /** Which proxies' X-Forwarded-* headers to believe (client address, protocol): Fastify's trustProxy. */
  trustProxy: boolean | number | string[];
  /** Directory holding the built single-page app (index.html), or null when it is not built. */
  webDistDir: string | null;
  /** MIGRATE_ON_START: apply pending migrations at start (under the advisory lock), or only check that none is pending. */
  migrateOnStart: boolean;
  /**
   * The drain on SIGTERM (http/drain.ts): /readyz answers 503 at once, new connections are
   * still taken for graceSeconds, then in-flight calls and streams may finish until timeoutSeconds
   * after the signal, when what is still open is cut (decision 0082).
   */
  shutdown: { graceSeconds: number; timeoutSeconds: number };
  metrics: MetricsConfig;
  /** OpenTelemetry traces (observability/tracing.ts): off when tracesUrl is null. */
  tracing: TracingConfig;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Reads the environment into a Config, or throws a ConfigError listing every problem at once. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const text = (name: string): string | null => {
    const value = env[name]?.trim();
    return value ? value : null;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  /** "jpy=1500,vnd=250000": amounts in each currency's minor unit, keyed by lower-case ISO 4217 code. */
  const currencyAmounts = (name: string): Record<string, number> => {
    const raw = text(name);
    const amounts: Record<string, number> = {};
    if (raw === null) return amounts;
    for (const part of raw
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)) {
      const match = /^([A-Za-z]{3})\s*[=:]\s*(\d{1,12})$/.exec(part);
      if (!match || Number(match[2]) < 1) {
        problems.push(`${name} must list currency=amount pairs in minor units, e.g. "jpy=1500,vnd=250000" (got "${part}")`);
        continue;
      }
      amounts[match[1]!.toLowerCase()] = Number(match[2]);
    }
    return amounts;
  };
  const url = (name: string, fallback: string | null): string | null => {
    const raw = text(name) ?? fallback;
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!/^https?:$/.test(parsed.protocol) && !/^postgres(ql)?:$/.test(parsed.protocol) && !/^rediss?:$/.test(parsed.protocol)) {
        problems.push(`${name} must be an http(s), postgres or redis URL (got "${raw}")`);
      }
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be a URL (got "${raw}")`);
      return null;
    }
  };
  const flag = (name: string, fallback: boolean): boolean => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined || raw === null) return fallback;
    if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
    if (['0', 'false', 'off', 'no'].includes(raw)) return false;
    problems.push(`${name} must be on or off (got "${raw}")`);
    return fallback;
  };

  const port = integer('PORT', 3000, 0, 65535);
  // Unset, it is ./data at the repository root, wherever `npm start` runs the server from.
  const dataDir = text('DATA_DIR') ? path.resolve(text('DATA_DIR')!) : path.resolve(import.meta.dirname, '../../../data');
  const databaseUrl = url('DATABASE_URL', null);
  const databaseListenUrl = url('DATABASE_LISTEN_URL', null);
  const poolModeRaw = text('DATABASE_POOL_MODE')?.toLowerCase() ?? 'session';
  const databasePoolMode = poolModeRaw === 'transaction' ? 'transaction' : 'session';
  if (poolModeRaw !== 'session' && poolModeRaw !== 'transaction') problems.push(`DATABASE_POOL_MODE must be session or transaction (got "${poolModeRaw}")`);
  if (databasePoolMode === 'transaction' && databaseUrl === null)
    problems.push('DATABASE_POOL_MODE=transaction needs DATABASE_URL (a transaction pooler in front of PostgreSQL)');
  if (databasePoolMode === 'transaction' && databaseUrl !== null && databaseListenUrl === null) {
    problems.push(
      'DATABASE_POOL_MODE=transaction needs DATABASE_LISTEN_URL: a direct PostgreSQL connection for LISTEN, which a transaction pooler cannot hold',
    );
  }
  const databaseReadUrl = url('DATABASE_READ_URL', null);
  if (databaseReadUrl !== null && databaseUrl === null) {
    problems.push(
      'DATABASE_READ_URL needs DATABASE_URL: the embedded database (PGlite, no DATABASE_URL) has no replica; unset DATABASE_READ_URL or set DATABASE_URL to its primary',
    );
  }
  const publicUrl = url('PUBLIC_URL', `http://localhost:${port || 3000}`) ?? 'http://localhost:3000';

  // The issuer is compared byte for byte with each token's iss claim, so it is kept as given
  // (some providers end theirs with a slash).
  const externalIssuer = url('OIDC_ISSUER', null) === null ? null : text('OIDC_ISSUER');
  const oidc = externalIssuer
    ? {
        embedded: false,
        issuer: externalIssuer,
        clientId: text('OIDC_CLIENT_ID') ?? '',
        audience: text('OIDC_AUDIENCE') ?? '',
        providerName: text('OIDC_PROVIDER_NAME') ?? 'your identity provider',
      }
    : {
        embedded: true,
        issuer: `${publicUrl}/oidc`,
        clientId: text('OIDC_CLIENT_ID') ?? 'tollbooth-web',
        audience: text('OIDC_AUDIENCE') ?? `${publicUrl}/api`,
        providerName: 'Tollbooth',
      };
  if (externalIssuer && !oidc.clientId) problems.push('OIDC_CLIENT_ID is required when OIDC_ISSUER is set');
  if (externalIssuer && !oidc.audience) problems.push('OIDC_AUDIENCE is required when OIDC_ISSUER is set');

  let secretKey: Buffer | null = null;
  const rawSecret = text('SECRET_KEY');
  if (rawSecret !== null) {
    secretKey = parseSecretKey(rawSecret);
    if (!secretKey) problems.push('SECRET_KEY must be 64 hex characters or base64 of 32 bytes');
  }

  const redisUrl = url('REDIS_URL', null);
  const rateLimitPerMinute = integer('RATE_LIMIT_PER_MINUTE', 600, 1, 10_000_000);
  const answerJournalCopyAfterMs = integer('ANSWER_JOURNAL_COPY_AFTER_MS', 100, 10, 3_600_000);
  const config: Config = {
    production: text('NODE_ENV') === 'production',
    port,
    host: text('HOST') ?? '0.0.0.0',
    dataDir,
    databaseUrl,
    databasePoolMode,
    databaseListenUrl,
    databaseReadUrl,
    readStatementTimeoutMs: integer('READ_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000),
    publicUrl,
    secretKey: secretKey ?? Buffer.alloc(0),
    productName: 'Tollbooth',
    oidc,
    signupCreditsCents: integer('SIGNUP_CREDITS_CENTS', 500, 0, 100_000_000),
    platformFeeBps: integer('PLATFORM_FEE_BPS', 0, 0, 10_000),
    adminEmails: parseAdminEmails(text('ADMIN_EMAILS'), problems),
    mail: { smtpUrl: parseSmtpUrl(text('SMTP_URL'), problems), from: text('MAIL_FROM') ?? `Tollbooth <no-reply@${new URL(publicUrl).hostname}>` },
    signupLimits: {
      perAddressPerHour: integer('SIGNUP_LIMIT_PER_ADDRESS_PER_HOUR', 5, 1, 1_000_000),
      perHour: integer('SIGNUP_LIMIT_PER_HOUR', 200, 1, 10_000_000),
    },
    uploads: {
      quotaBytes: integer('UPLOAD_QUOTA_MB', 200, 1, 1_000_000) * 1024 * 1024,
      retentionDays: integer('UPLOAD_RETENTION_DAYS', 30, 1, 3650),
    },
    historyRetentionDays: text('RETENTION_DAYS') === null ? null : integer('RETENTION_DAYS', 0, 1, 36_500),
    claimLifetimeSeconds: integer('CLAIM_LIFETIME_SECONDS', 90, 3, 3600),
    priceIncreaseNoticeDays: integer('PRICE_INCREASE_NOTICE_DAYS', 7, 0, 365),
    priceLimitMicros: integer('PRICE_LIMIT_DOLLARS', 1000, 1, 1_000_000) * 1_000_000,
    payouts: {
      holdDays: integer('PAYOUT_HOLD_DAYS', 7, 0, 365),
      minimumCents: integer('PAYOUT_MINIMUM_CENTS', 1000, 1, 100_000_000),
      minimums: currencyAmounts('PAYOUT_MINIMUMS'),
      sweepSeconds: integer('PAYOUT_SWEEP_SECONDS', 3600, 0, 604_800),
    },
    logLevel: text('LOG_LEVEL') ?? 'info',
    stripe: {
      secretKey: text('STRIPE_SECRET_KEY'),
      publishableKey: text('STRIPE_PUBLISHABLE_KEY'),
      webhookSecret: text('STRIPE_WEBHOOK_SECRET'),
      connectWebhookSecret: text('STRIPE_CONNECT_WEBHOOK_SECRET'),
      apiBase: url('STRIPE_API_BASE', null),
    },
    models: {
      openaiApiKey: text('OPENAI_API_KEY'),
      openaiBaseUrl: url('OPENAI_BASE_URL', 'https://api.openai.com/v1') ?? 'https://api.openai.com/v1',
      anthropicApiKey: text('ANTHROPIC_API_KEY'),
      geminiApiKey: text('GEMINI_API_KEY'),
      demoModel: flag('DEMO_MODEL', true),
    },
    redisUrl,
    allowPrivateProviderUrls: flag('ALLOW_PRIVATE_PROVIDER_URLS', false),
    webhooks: {
      allowPrivateUrls: flag('ALLOW_PRIVATE_WEBHOOK_URLS', false),
      timeoutMs: integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      worker: flag('WEBHOOK_WORKER', true),
    },
    gateway: {
      rateLimitPerMinute,
      userRateLimitPerMinute: integer('USER_RATE_LIMIT_PER_MINUTE', 2 * rateLimitPerMinute, 1, 20_000_000),
      managementRateLimitPerMinute: integer('MANAGEMENT_RATE_LIMIT_PER_MINUTE', 1200, 1, 10_000_000),
      providerTimeoutMs: integer('PROVIDER_TIMEOUT_MS', 60_000, 100, 600_000),
      settlementWindowCalls: integer('SETTLEMENT_WINDOW_CALLS', 256, 0, 10_000),
      answerJournalCopyAfterMs,
      // Decision 0061: 12 ms, or half the copy delay where that is shorter (the gathering must end first).
      settlementGatherMs: integer('SETTLEMENT_GATHER_MS', Math.min(DEFAULT_SETTLEMENT_GATHER_MS, Math.floor(answerJournalCopyAfterMs / 2)), 0, 60_000),
      answerJournalDir: text('ANSWER_JOURNAL_DIR') ? path.resolve(text('ANSWER_JOURNAL_DIR')!) : null,
      modelTable: DEFAULT_MODEL_TABLE,
    },
    webDistDir: resolveWebDist(text('WEB_DIST_DIR')),
    trustProxy: parseTrustProxy(text('TRUST_PROXY'), problems),
    migrateOnStart: flag('MIGRATE_ON_START', true),
    shutdown: {
      graceSeconds: integer('SHUTDOWN_GRACE_SECONDS', 5, 0, 600),
      timeoutSeconds: integer('SHUTDOWN_TIMEOUT_SECONDS', 30, 1, 3600),
    },
    metrics: { enabled: false, token: null, port: null, host: '127.0.0.1', perApp: false },
    tracing: { tracesUrl: null, headers: {}, serviceName: 'tollbooth', sampler: 'parentbased_always_on', samplerRatio: 1, protocol: 'http/protobuf' },
  };
  config.metrics = readMetrics(env, port, problems);
  config.tracing = readTracing(env, problems);
  const modelTable = text('MODEL_TABLE');
  if (modelTable !== null) {
    try {
      config.gateway.modelTable = parseModelTable(modelTable);
    } catch (error) {
      problems.push(`MODEL_TABLE: ${(error as Error).message}`);
    }
  }
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${config.logLevel}")`);
  }
  const { settlementGatherMs } = config.gateway;
  if (settlementGatherMs > 0 && settlementGatherMs >= answerJournalCopyAfterMs) {
    problems.push(
      `SETTLEMENT_GATHER_MS must be below ANSWER_JOURNAL_COPY_AFTER_MS (${answerJournalCopyAfterMs} ms): every call gathered longer would also be copied to the database (got "${settlementGatherMs}")`,
    );
  }
  if (config.shutdown.timeoutSeconds <= config.shutdown.graceSeconds) {
    problems.push(
      `SHUTDOWN_TIMEOUT_SECONDS must be longer than SHUTDOWN_GRACE_SECONDS (${config.shutdown.graceSeconds}): both count from the signal (got "${config.shutdown.timeoutSeconds}")`,
    );
  }
  if (config.production) problems.push(...productionProblems(env, config));
  if (problems.length > 0) throw new ConfigError(problems);
  // Without SECRET_KEY, the key kept in DATA_DIR by an earlier start; none yet, keepSecretKey makes it.
  if (secretKey === null) config.secretKey = readSecretKeyFile(dataDir, (problem) => new ConfigError([problem])) ?? Buffer.alloc(0);
  return config;
}

/** What production mode (NODE_ENV=production) requires beyond valid values, one line per problem, naming the variable. */
function productionProblems(env: Env, config: Config): string[] {
  const problems: string[] = [];
  const mode = 'in production mode (NODE_ENV=production)';
  const rawSecret = env.SECRET_KEY?.trim();
  if (!rawSecret) {
    problems.push(`SECRET_KEY is required ${mode}: 64 hex characters, e.g. from \`openssl rand -hex 32\`; every process of one database needs the same`);
  } else if (config.secretKey.length === 32 && isWeakSecretKey(config.secretKey)) {
    problems.push(`SECRET_KEY is too weak ${mode}: it repeats a few byte values; use 32 random bytes, e.g. from \`openssl rand -hex 32\``);
  }
  if (!env.PUBLIC_URL?.trim()) problems.push(`PUBLIC_URL is required ${mode}: the URL users reach Tollbooth at, e.g. https://tollbooth.example.com`);
  if (config.stripe.secretKey && !config.stripe.webhookSecret) {
    problems.push(`STRIPE_WEBHOOK_SECRET is required ${mode} when STRIPE_SECRET_KEY is set: without it no payment is ever credited`);
  }
  return problems;
}

function resolveWebDist(explicit: string | null): string | null {
  const candidates = explicit ? [path.resolve(explicit)] : [path.resolve(import.meta.dirname, '../../../web/dist')];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? null;
}
