// Builds a real Tollbooth app for API tests: fresh database, loopback OIDC issuer, no port.
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeEach, expect } from 'vitest';
import { type App, type AppDependencies, buildApp } from '../app.ts';
import type { Database } from '../db/client.ts';
import { type Config, loadConfig } from '../platform/config.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import type { FakeProviderServer } from './fakes/http-fake.ts';
import { startOpenAIFake } from './fakes/openai-fake.ts';
import { startTestIssuer, type TestIssuer } from './oidc-issuer.ts';

export interface TestContext {
  app: App;
  config: Config;
  database: TestDatabase;
  /** The test's database as the app was given it: no wait for settlements (unless wrapDatabase changed it, the raw one). */
  appDb: Database;
  issuer: TestIssuer;
  /** An access token for a subject, with profile claims. */
  tokenFor(subject: string, claims?: Record<string, unknown>): Promise<string>;
  /** An API request as a caller with this Bearer token (none when null), with an optional JSON body. */
  api(method: ApiMethod, url: string, token: string | null, payload?: object, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** The rows one statement reads (after this process's answered calls are settled). */
  sql<T>(text: string, params?: unknown[]): Promise<(T & Record<string, unknown>)[]>;
  /** A new signed-in user, subject `${name}-N` (N counts this context's users): its token and id. */
  newUser(name?: string): Promise<{ token: string; id: string }>;
  /** A live app of the creator with this token (a public prompt unless `fields` says otherwise), which must be created: its slug and id. */
  liveApp(token: string, fields: Record<string, unknown>): Promise<{ slug: string; id: string }>;
  close(): Promise<void>;
}

export type ApiMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** A 400 that names `field`: code invalid_param, the field in params and in the message. */
export function expectInvalidParam(response: LightMyRequestResponse, field: string): void {
  expect(response.statusCode).toBe(400);
  expect(response.json()).toMatchObject({ code: 'invalid_param', status: 400, params: field });
  expect(response.json().message).toContain(field);
}

/**
 * The database as a test reads it: each statement waits first for the settlements of calls the app
 * has already answered (billing/paid-call/service.ts answers before the commit; the API's own reads wait
 * the same way, http/settled-reads.ts).
 */
export function readingAfterSettlements(db: Database, written: () => Promise<unknown> | null): Database {
  const settled = async () => {
    await written();
  };
  return {
    kind: db.kind,
    query: (async (sql: string, params?: readonly unknown[]) => {
      await settled();
      return db.query(sql, params);
    }) as Database['query'],
    exec: async (sql) => {
      await settled();
      return db.exec(sql);
    },
    transaction: async (fn) => {
      await settled();
      return db.transaction(fn);
    },
    listen: (channel, handlers) => db.listen(channel, handlers),
    close: () => db.close(),
  };
}

export const TEST_SECRET_KEY = 'a'.repeat(64);

/** Makes the app listen on a free loopback port (for real HTTP clients, SDKs and webhooks): its base URL. */
export async function listenOnLoopback(app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

export interface TestContextOptions {
  logger?: AppDependencies['logger'];
  /** The database as the app sees it (e.g. to hold or fail some statements); the test's own reads are not wrapped. */
  wrapDatabase?: (db: Database) => Database;
  /** Observability's knobs (app.ts): how often the money's health is read, Node's process metrics. */
  observability?: AppDependencies['observability'];
  /** A read replica of the test's database (closed with the context), e.g. test-support/replica.ts's. */
  readReplica?: (database: TestDatabase) => Promise<Database>;
}

export async function createTestContext(env: Record<string, string> = {}, options: TestContextOptions = {}): Promise<TestContext> {
  const [database, issuer] = await Promise.all([createTestDatabase(), startTestIssuer()]);
  const config = loadConfig({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-test-')),
    SECRET_KEY: TEST_SECRET_KEY,
    PUBLIC_URL: 'http://tollbooth.test',
    OIDC_ISSUER: issuer.issuer,
    OIDC_CLIENT_ID: 'test-client',
    OIDC_AUDIENCE: issuer.audience,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const appDb = options.wrapDatabase?.(database.db) ?? database.db;
  const readReplica = options.readReplica ? await options.readReplica(database) : undefined;
  const app = await buildApp({
    config,
    db: appDb,
    readReplica,
    logger: options.logger ?? false,
    observability: options.observability ?? { processMetrics: false },
  });
  await app.ready();
  // The test reads the database as the API does: after this process's answered calls are settled.
  const db = readingAfterSettlements(database.db, () => app.settledReads());
  const tokenFor: TestContext['tokenFor'] = (subject, claims = {}) =>
    issuer.sign({ sub: subject, email: `${subject}@example.com`, name: `User ${subject}`, ...claims });
  const api: TestContext['api'] = (method, url, token, payload, headers = {}) =>
    app.inject({ method, url, headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers }, ...(payload ? { payload } : {}) });
  let users = 0;
  return {
    app,
    config,
    database: { ...database, db },
    appDb,
    issuer,
    tokenFor,
    api,
    sql: async <T>(text: string, params: unknown[] = []) => (await db.query<T & Record<string, unknown>>(text, params)).rows,
    async newUser(name = 'user') {
      const token = await tokenFor(`${name}-${++users}`);
      return { token, id: (await api('GET', '/api/auth/profile/', token)).json().user.id as string };
    },
    async liveApp(token, fields) {
      const created = await api('POST', '/api/app/', token, { type: 'prompt', visibility: 'public', ...fields });
      expect(created.statusCode, created.body).toBe(201);
      const slug = created.json().slug as string;
      await api('PATCH', `/api/app/${slug}/update_status/`, token, { status: 'live' });
      return { slug, id: created.json().id as string };
    },
    async close() {
      await app.close();
      await readReplica?.close();
      await Promise.all([database.cleanup(), issuer.close()]);
    },
  };
}

export interface PaidTestContext extends TestContext {
  /** The OpenAI-compatible model fake every OpenAI model name of the table is served by. */
  model: FakeProviderServer;
}

export const TEST_MODEL_API_KEY = 'sk-test-model';

/**
 * A test app whose OpenAI models (the default gpt-4 among them) are answered by a REAL provider:
 * the OpenAI-compatible fake on loopback, through OPENAI_BASE_URL and OPENAI_API_KEY. Calls it
 * answers are charged like production calls; the demo model (never charged) still answers the
 * Anthropic and Gemini model names.
 */
export async function createPaidTestContext(env: Record<string, string> = {}, options: TestContextOptions = {}): Promise<PaidTestContext> {
  const model = await startOpenAIFake({ apiKey: TEST_MODEL_API_KEY });
  const ctx = await closingWith(model, () => createTestContext({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: TEST_MODEL_API_KEY, ...env }, options));
  return { ...ctx, model };
}

/** A test context for the whole test file, closed after its tests. */
export async function testContextForFile(env: Record<string, string> = {}, options: TestContextOptions = {}): Promise<TestContext> {
  const ctx = await createTestContext(env, options);
  afterAll(() => ctx.close());
  return ctx;
}

/** A paid test context for the whole test file: closed after its tests, its model fake's behaviour reset before each. */
export async function paidTestContextForFile(env: Record<string, string> = {}, options: TestContextOptions = {}): Promise<PaidTestContext> {
  const ctx = await createPaidTestContext(env, options);
  afterAll(() => ctx.close());
  beforeEach(() => ctx.model.resetBehaviour());
  return ctx;
}

/** The context `build` makes, which closes `fake` after itself; `fake` is closed at once when the context cannot be made. */
export async function closingWith<Context extends TestContext>(fake: { close(): Promise<void> }, build: () => Promise<Context>): Promise<Context> {
  let ctx: Context;
  try {
    ctx = await build();
  } catch (error) {
    await fake.close();
    throw error;
  }
  return {
    ...ctx,
    async close() {
      await ctx.close();
      await fake.close();
    },
  };
}
