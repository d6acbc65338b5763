// Builds the Fastify app from its parts. main.ts only listens and shuts down; tests call
// buildApp() and use app.inject() without a port.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { analyticsRoutes } from './analytics/routes.ts';
import { createAnalyticsService, readRecentErrorRates, startAppTotalsRoller } from './analytics/service.ts';
import { appsRoutes } from './apps/routes.ts';
import { createAppsService } from './apps/service.ts';
import { registerAuth } from './auth/plugin.ts';
import { authRoutes } from './auth/routes.ts';
import { createUsersService } from './auth/users-service.ts';
import { answerJournalDirectory } from './billing/paid-call/answer-journal.ts';
import { createPaidCalls } from './billing/paid-call/service.ts';
import { paymentsRoutes, webhookRoutes } from './billing/payments/routes.ts';
import { createPaymentsService } from './billing/payments/service.ts';
import { createWebhookHandler } from './billing/payments/webhook.ts';
import { payoutsRoutes } from './billing/payouts/routes.ts';
import { createPayoutsService } from './billing/payouts/service.ts';
import { billingRoutes } from './billing/routes.ts';
import { createBillingService, grantSignupCredits, openUserAccounts, readCreditAlertInputs, usersWithStatementActivity } from './billing/service.ts';
import { statementsRoutes } from './billing/statements/routes.ts';
import { createStatementsService } from './billing/statements/service.ts';
import { createTestRunBilling } from './billing/test-runs-service.ts';
import { catalogRoutes } from './catalog/routes.ts';
import { createCatalogService } from './catalog/service.ts';
import type { Database } from './db/client.ts';
import { createInvalidationBus } from './db/invalidation.ts';
import { startHistoryKeeper } from './db/partitions.ts';
import type { ReadRouter } from './db/reads.ts';
import { difyRoutes } from './dify/routes.ts';
import { createDifyApiService } from './dify/service.ts';
import { createRunningTasks } from './dify/tasks.ts';
import { downloadsRoutes } from './downloads/routes.ts';
import { createDownloadsService } from './downloads/service.ts';
import { embedRoutes } from './embed/routes.ts';
import { createEmbedService } from './embed/service.ts';
import { createCallTargetCache } from './gateway/call-target-cache.ts';
import { sweepExpiredUploads } from './gateway/files.ts';
import { createIdempotencyStore } from './gateway/idempotency.ts';
import { gatewayRoutes } from './gateway/routes.ts';
import { createGatewayService } from './gateway/service.ts';
import { createReadiness, probeRoutes } from './health/probes.ts';
import { healthRoutes } from './health/routes.ts';
import { createHealthService } from './health/service.ts';
import { registerCallChain } from './http/call-chain.ts';
import { registerCallerCors } from './http/cors.ts';
import { createLifecycle, trackHandlers } from './http/drain.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { limitManagementRequests } from './http/management-rate-limit.ts';
import { registerRouteTable } from './http/method-not-allowed.ts';
import { createSchemaNamer, pruneComponentSchemas } from './http/openapi-components.ts';
import { addExamples } from './http/openapi-examples.ts';
import { addResponseHeaders } from './http/openapi-headers.ts';
import { addOperationIds } from './http/operation-ids.ts';
import { registerReads } from './http/read-routing.ts';
import { refuseMultipartBodies, registerRequestGuards } from './http/request-guards.ts';
import { registerRequestIdHeader, requestIdOf } from './http/request-id.ts';
import { registerSettledReads } from './http/settled-reads.ts';
import { keysRoutes } from './keys/routes.ts';
import { createApiKeysService } from './keys/service.ts';
import { registerObservability } from './observability/observe.ts';
import { startTracing } from './observability/tracing.ts';
import { openaiRoutes } from './openai/routes.ts';
import { createOpenAIService } from './openai/service.ts';
import { operatorRoutes } from './operator/routes.ts';
import { createOperatorService } from './operator/service.ts';
import type { Config } from './platform/config.ts';
import { serializeRequest } from './platform/logging.ts';
import { createMetrics } from './platform/metrics.ts';
import { createRateLimiter } from './platform/rate-limit.ts';
import { validatorCompiler } from './platform/validation.ts';
import { ownKeysRoutes } from './profile/own-keys-routes.ts';
import { createOwnKeysService } from './profile/own-keys-service.ts';
import { profileRoutes } from './profile/routes.ts';
import { createProfileService } from './profile/service.ts';
import { createCostEstimator } from './prompts/cost-estimate.ts';
import { promptsRoutes } from './prompts/routes.ts';
import { copyPromptConfig, createDefaultPromptConfig, createPromptsService } from './prompts/service.ts';
import { createModelRouter } from './providers/registry.ts';
import { createStripeClient } from './providers/stripe/client.ts';
import { createWorkflowProviderRegistry } from './providers/workflows/registry.ts';
import { forgetOwnServer, registerOwnServer } from './providers/workflows/safe-http.ts';
import { registerCompression } from './web-app/compression.ts';
import { serveWebApp } from './web-app/serve-web-app.ts';
import { webhooksRoutes } from './webhooks/routes.ts';
import { createCallAlerts, createWebhooksService } from './webhooks/service.ts';
import { createWebhookWorker } from './webhooks/worker.ts';
import { createWorkflowCallTarget } from './workflows/call-target-service.ts';
import { workflowsRoutes } from './workflows/routes.ts';
import { copyWorkflowConfig, createInitialWorkflowConfig, createWorkflowsService, recordWorkflowVersionIfChanged } from './workflows/service.ts';

export interface AppDependencies {
  config: Config;
  db: Database;
  /** The read replica (tests give their own); default: DATABASE_READ_URL opened here, or none. */
  readReplica?: Database | null;
  logger?: FastifyServerOptions['logger'];
  /** The process's drain state (main.ts drains it on SIGTERM); a fresh one when not given. */
  lifecycle?: ReturnType<typeof createLifecycle>;
  /** Observability's knobs that are not settings: how often the money's health is read (default a minute), Node's process metrics (default on). */
  observability?: { healthEveryMs?: number; processMetrics?: boolean };
}

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** Where reads go, and how many went where (db/reads.ts): tests and metrics read its counters. */
    reads: ReadRouter;
  }
}

/** TRUST_PROXY as a hop count: believe that many proxies nearest to this server. */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

export async function buildApp({ config, db, readReplica, logger, lifecycle = createLifecycle(), observability = {} }: AppDependencies) {
  const app = Fastify({
    logger: logger ?? { level: config.logLevel, serializers: { req: serializeRequest } },
    bodyLimit: 1024 * 1024,
    // Avvio's 10 s default fails a start on a busy machine (the embedded provider makes its signing keys
    // at start; load averages of 25-40 made that take longer): /readyz says when a process serves.
    pluginTimeout: 60_000,
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // Slugs and ids never need case-folding; keep paths exact. The spec's paths end in a slash;
    // every route answers the same with or without it (/api/keys and /api/keys/).
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    // X-Request-Id: a valid incoming id is echoed, else a new one (http/request-id.ts); the log's reqId.
    requestIdHeader: false,
    genReqId: requestIdOf,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // First, so every route's handler is counted while it runs (the drain waits for them).
  trackHandlers(app, lifecycle);
  registerRequestIdHeader(app);
  // Metrics and traces (issue 58): null when off (no METRICS_TOKEN or METRICS_PORT; no OTLP endpoint).
  const metrics = config.metrics.enabled ? createMetrics({ perApp: config.metrics.perApp, processMetrics: observability.processMetrics }) : null;
  const tracer = startTracing(config, metrics);
  // The answered calls' journal is billing's, made below; read only when /metrics is scraped.
  let journalFigures = () => ({ calls: 0, oldestAt: null as number | null });
  const observed = registerObservability(app, {
    config,
    db,
    metrics,
    tracing: tracer?.tracing ?? null,
    journal: () => journalFigures(),
    healthEveryMs: observability.healthEveryMs,
  });
  const routeTable = registerRouteTable(app);
  registerErrorHandling(app);
  registerRequestGuards(app);
  refuseMultipartBodies(app);
  registerCallerCors(app);
  // Calls that come back through a chain of Tollbooth calls, and provider URLs that are this server (issue 24).
  registerCallChain(app, { secret: config.secretKey, publicUrl: config.publicUrl });
  registerOwnServer({ publicUrl: config.publicUrl });
  let listeningPort: number | null = null;
  app.addHook('onListen', async () => {
    const address = app.server.address();
    if (address && typeof address === 'object') {
      listeningPort = address.port;
      registerOwnServer({ port: listeningPort });
    }
  });
  app.addHook('onClose', async () => {
    forgetOwnServer({ publicUrl: config.publicUrl, port: listeningPort ?? undefined });
  });

  // The document names the contract's shapes (http/openapi-components.ts), documents the multipart
  // body of uploads, operationIds and response headers; routes' own schemas are left as they are.
  const schemaNamer = createSchemaNamer(undefined, { multipartBody: 'FileUpload' });
  await app.register(swagger, {
    transform: schemaNamer.transform,
    transformObject: (document) =>
      'openapiObject' in document ? addExamples(addResponseHeaders(addOperationIds(pruneComponentSchemas(document.openapiObject)))) : document.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${config.productName} API`,
        version: '0.1.0',
        // The API is used under the product's terms (the web app's /terms page).
        termsOfService: `${config.publicUrl}/terms`,
        license: { name: `${config.productName} Terms of Service`, url: `${config.publicUrl}/terms` },
        description:
          'REST API of Tollbooth. Authenticate with `Authorization: Bearer <access token or API key>`. ' +
          'Errors are JSON `{code, message, status}`. Money is integer cents in storage; fields named *_cents are cents, others are dollars.',
      },
      servers: [{ url: config.publicUrl }],
      tags: [
        {
          name: 'dify',
          description: `Dify's Service API per app: a Dify client's base URL is \`${config.publicUrl}/api/app/{slug}\`; completion-messages and chat-messages are under gateway.`,
        },
      ],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'OIDC access token or Tollbooth API key (tb_...)' } },
        schemas: schemaNamer.components(),
      },
    },
  });
  // The docs page and its JSON (/api/docs/json, ~260 KB) compressed like the rest of /api.
  await app.register(async (scope) => {
    await registerCompression(scope);
    await scope.register(swaggerUi, { routePrefix: '/api/docs' });
  });
  // The platform's OpenAPI document where tools look for it first (also at /api/docs/json).
  await app.register(async (scope) => {
    await registerCompression(scope);
    scope.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => reply.header('Cache-Control', 'public, max-age=300').send(app.swagger()));
  });

  // /livez and /readyz for orchestrators and load balancers (health/probes.ts).
  await app.register(probeRoutes, { readiness: createReadiness({ db, lifecycle }) });

  // Per-process caches on the paid call's path hear of changes from every process (migration 0018).
  const invalidation = await createInvalidationBus(db);
  const crashRecovery = {
    holdLifetimeSeconds: config.claimLifetimeSeconds,
    onRenewError: (error: unknown) => app.log.error({ err: error }, 'renewing credit holds or idempotency claims failed'),
  };
  const paidCalls = createPaidCalls(db, {
    platformFeeBps: config.platformFeeBps,
    ...crashRecovery,
    log: app.log,
    invalidation,
    settlementWindowCalls: config.gateway.settlementWindowCalls,
    settlementGatherMs: config.gateway.settlementGatherMs,
    journalDirectory: await answerJournalDirectory(db, {
      base: config.gateway.answerJournalDir,
      // An embedded database's journal lives beside its files (main.ts opens it under DATA_DIR).
      dataDir: db.kind === 'pglite' && config.databaseUrl === null ? config.dataDir : null,
    }),
    journalCopyAfterMs: config.gateway.answerJournalCopyAfterMs,
    metrics,
  });
  journalFigures = paidCalls.journalFigures;
  registerSettledReads(app, paidCalls.written);
  const reads = await registerReads(app, { config, db, readReplica });
  // Where the routed reads went since start (db/reads.ts): statements per database, and why some left the replica.
  metrics?.gauge(
    'tollbooth_db_read_statements',
    'Routed read statements since start, by the database that ran them (replica or primary)',
    ['database'],
    (gauge) => {
      gauge.set({ database: 'replica' }, reads.counters.replica);
      gauge.set({ database: 'primary' }, reads.counters.primary);
    },
  );
  metrics?.gauge(
    'tollbooth_db_read_fallbacks',
    "Reads sent to the primary since start: the replica had not replayed the reader's last change (behind), or failed a statement (replica_failed)",
    ['reason'],
    (gauge) => {
      gauge.set({ reason: 'behind' }, reads.counters.behind);
      gauge.set({ reason: 'replica_failed' }, reads.counters.retried);
    },
  );
  // Publishable keys are bound to apps; `apps` is made below, and only used once requests come in.
  const keys = createApiKeysService({ db, reads, invalidation, apps: { findCallableApp: (slug) => apps.findCallableApp(slug) } });
  await app.register(registerAuth, { config, db, apiKeys: keys, accounts: { openUserAccounts, grantSignupCredits } });
  const callTargets = createCallTargetCache();
  const apps = createAppsService({
    db,
    reads,
    config,
    onChange: (slug, appId) => {
      callTargets.invalidate({ slug });
      workflows.forgetCallConfig(appId);
    },
    createHooks: [async (tx, created) => (created.type === 'prompt' ? createDefaultPromptConfig(tx, created.id) : createInitialWorkflowConfig(tx, created.id))],
    copyHooks: [copyPromptConfig, copyWorkflowConfig],
    providerConfigHooks: [async (tx, appId) => void (await recordWorkflowVersionIfChanged(tx, config.secretKey, appId, 'Updated provider settings'))],
  });
  const models = createModelRouter(config.models, { table: config.gateway.modelTable, allowPrivateUrls: config.allowPrivateProviderUrls });
  const unpriced = models.unpricedModels();
  if (unpriced.length > 0) {
    app.log.warn(
      { models: unpriced },
      `No known price for ${unpriced.join(', ')}: these models cannot be used on the platform's provider keys until MODEL_TABLE gives their "prices"`,
    );
  }
  // Bring your own key: creators' own provider keys (profile/own-keys-service.ts).
  const ownKeys = createOwnKeysService({
    db,
    secretKey: config.secretKey,
    allowPrivateUrls: config.allowPrivateProviderUrls,
    models,
    invalidation,
    timeoutMs: config.gateway.providerTimeoutMs,
  });
  const rateLimiter = createRateLimiter({ redisUrl: config.redisUrl, limitPerMinute: config.gateway.rateLimitPerMinute, db, name: 'calls' });
  const prompts = createPromptsService({
    db,
    models,
    testRuns: createTestRunBilling(db, rateLimiter),
    ownCredentials: ownKeys.credentialsOf,
    timeoutMs: config.gateway.providerTimeoutMs,
    onChange: (appId) => callTargets.invalidate({ appId }),
  });
  const workflows = createWorkflowsService({
    db,
    config,
    providers: createWorkflowProviderRegistry({ allowPrivateUrls: config.allowPrivateProviderUrls }),
    onChange: (appId) => callTargets.invalidate({ appId }),
  });
  const catalog = createCatalogService({
    db,
    reads,
    publicUrl: config.publicUrl,
    productName: config.productName,
    apps,
    prompts,
    isDemoModel: (model) => models.demoModels().some((demo) => demo.name === model),
  });
  const stripe = createStripeClient(config.stripe);
  const payments = createPaymentsService({ db, apps, stripe, invalidation });
  const webhooks = createWebhookHandler({ db, config, stripe, log: app.log });
  const payouts = createPayoutsService({ db, config, stripe });

  const managementLimiter = createRateLimiter({
    redisUrl: config.redisUrl,
    limitPerMinute: config.gateway.managementRateLimitPerMinute,
    db,
    name: 'management',
  });
  await app.register(
    async (api) => {
      // The management API's JSON above 1 KiB; not the callers' endpoints below (docs/decisions/0020-web-delivery.md).
      await registerCompression(api);
      limitManagementRequests(api, managementLimiter);
      await api.register(healthRoutes, { health: createHealthService({ config, db, models }) });
      await api.register(authRoutes, { config, users: createUsersService({ db }) });
      await api.register(profileRoutes, { profile: createProfileService({ db, reads }) });
      await api.register(ownKeysRoutes, { ownKeys });
      await api.register(appsRoutes, { apps });
      await api.register(analyticsRoutes, {
        analytics: createAnalyticsService({
          reads,
          apps,
          onExportError: (error) => app.log.error({ err: error }, 'an invocations export failed after its first line'),
        }),
      });
      await api.register(promptsRoutes, { apps, prompts, costs: createCostEstimator({ db, priceOfModel: models.priceOf }) });
      await api.register(workflowsRoutes, { apps, workflows });
      await api.register(keysRoutes, { keys });
      await api.register(billingRoutes, { billing: createBillingService({ db }) });
      await api.register(downloadsRoutes, {
        downloads: createDownloadsService({
          apps,
          prompts,
          publicUrl: config.publicUrl,
          readWorkflowAppInfo: async (row) => (await workflows.readConfig(row)).app_info,
        }),
      });
      await api.register(catalogRoutes, { catalog });
      await api.register(paymentsRoutes, { payments });
      await api.register(webhookRoutes, { webhooks, secret: config.stripe.webhookSecret, connectSecret: config.stripe.connectWebhookSecret });
      await api.register(payoutsRoutes, { payouts });
      await api.register(statementsRoutes, { statements: createStatementsService({ db, reads, stripe, log: app.log }) });
      await api.register(operatorRoutes, { operator: createOperatorService({ db, adminEmails: config.adminEmails }) });
      await api.register(webhooksRoutes, { webhooks: createWebhooksService({ db, config }) });
    },
    { prefix: '/api' },
  );

  const userRateLimiter = createRateLimiter({ redisUrl: config.redisUrl, limitPerMinute: config.gateway.userRateLimitPerMinute, db, name: 'user-calls' });
  const idempotency = createIdempotencyStore(db, {
    waitTimeoutMs: config.gateway.providerTimeoutMs + 5_000,
    claimLifetimeSeconds: config.claimLifetimeSeconds,
    onRenewError: crashRecovery.onRenewError,
  });
  const gateway = createGatewayService({
    paidCalls,
    db,
    config,
    apps,
    prompts,
    models,
    ownCredentials: ownKeys.credentialsOf,
    rateLimiter,
    userRateLimiter,
    callTargets,
    idempotency,
    workflowCalls: createWorkflowCallTarget({ db, config, workflows }),
    metrics,
    tracing: tracer?.tracing ?? null,
    callAlerts: createCallAlerts(db, (error) => app.log.error({ err: error }, 'recording a key alert webhook failed')),
  });
  // The embed widget (embed/): its page, and its calls paid by a publishable key (decision 0030).
  const visitorLimiter = createRateLimiter({ redisUrl: config.redisUrl, limitPerMinute: 10 });
  const embed = createEmbedService({
    config,
    keys,
    apps,
    catalog,
    visitorLimiter,
  });
  // One door per caller protocol (gateway/door-service.ts): the uploads are the gateway's own; Dify's
  // routes (dify/) and the embed widget's calls answer Dify's messages, whose streams `tasks` keeps for
  // Dify's stop endpoint; then OpenAI's.
  const tasks = createRunningTasks();
  await app.register(gatewayRoutes, { gateway });
  await app.register(embedRoutes, { embed, gateway, tasks });
  await app.register(difyRoutes, { gateway, tasks, difyApi: createDifyApiService({ db, workflows, findTarget: gateway.findTarget }) });
  await app.register(openaiRoutes, {
    gateway,
    openai: createOpenAIService({ db, workflows, findTarget: gateway.findTarget, apiKeys: keys, rateLimitPerMinute: config.gateway.rateLimitPerMinute }),
  });
  const uploadSweeper = setInterval(() => {
    sweepExpiredUploads(db, config.uploads.retentionDays).catch((error: unknown) => app.log.error({ err: error }, 'removing expired uploads failed'));
  }, 60 * 60_000);
  uploadSweeper.unref();
  // Month partitions of call detail made ahead, and with RETENTION_DAYS old ones dropped: now and daily.
  const historyKeeper = startHistoryKeeper(db, { retentionDays: config.historyRetentionDays, log: app.log });
  // The apps' running totals (the dashboard's table, the catalog's popularity) rolled to today: now and every 5 minutes.
  const appTotalsRoller = startAppTotalsRoller(db, { log: app.log });
  // Creator payouts: retries of unanswered transfers and the weekly/daily schedule (PAYOUT_SWEEP_SECONDS, 0: off).
  const payoutSweeper =
    stripe && config.payouts.sweepSeconds > 0
      ? setInterval(() => {
          payouts.sweep().catch((error: unknown) => app.log.error({ err: error }, 'creator payouts round failed'));
        }, config.payouts.sweepSeconds * 1000)
      : null;
  payoutSweeper?.unref();
  // Signed webhooks (webhooks/worker.ts): delivered off the paid call's path, by every process unless WEBHOOK_WORKER=off.
  const webhookWorker = createWebhookWorker({
    db,
    config,
    log: app.log,
    sources: {
      creditAlertInputs: (userIds) => readCreditAlertInputs(db, userIds),
      recentErrorRates: (ownerIds, since) => readRecentErrorRates(db, ownerIds, since),
      usersWithStatementActivity: (userIds, from, to) => usersWithStatementActivity(db, userIds, from, to),
    },
  });
  if (config.webhooks.worker) webhookWorker.start();
  app.decorate('webhookWorker', webhookWorker);

  await observed.start();
  app.addHook('onClose', async () => {
    await observed.stop();
    await webhookWorker.close();
    clearInterval(uploadSweeper);
    historyKeeper.stop();
    await historyKeeper.ran;
    await appTotalsRoller.stop();
    if (payoutSweeper) clearInterval(payoutSweeper);
    await paidCalls.close();
    idempotency.close();
    await rateLimiter.close();
    await userRateLimiter.close();
    await visitorLimiter.close();
    await managementLimiter.close();
    await invalidation.close();
    await tracer?.shutdown();
  });

  await serveWebApp(app, config, routeTable);
  return app;
}
