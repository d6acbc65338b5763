// Several real server processes on one PostgreSQL database, for tests of what processes share (a
// kill, a race, a limit); apart from server-process.ts, which scripts outside the test runner use too.
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './database.ts';
import type { FakeProviderServer } from './fakes/http-fake.ts';
import { startOpenAIFake } from './fakes/openai-fake.ts';
import { startTestIssuer, type TestIssuer } from './oidc-issuer.ts';
import { type ServerProcess, startServerProcess, stopServerProcess } from './server-process.ts';

/**
 * What the server processes of one test share: a PostgreSQL database of the test's own, a loopback
 * OIDC issuer and an OpenAI-compatible model fake (PostgreSQL only, as startServerProcess).
 */
export interface ProcessCluster {
  database: TestDatabase;
  issuer: TestIssuer;
  upstream: FakeProviderServer;
  /** Every process started so far, in order. */
  servers: ServerProcess[];
  /** Starts one more process on the shared parts, with `env` over their settings. */
  start(env?: Record<string, string>): Promise<ServerProcess>;
  /** Stops the processes (SIGTERM; one already gone is left), then drops the database and closes the fakes. */
  close(): Promise<void>;
}

/** `modelApiKey`: the key the model fake asks for (any when not given) and the processes send. */
export async function startProcessCluster({ modelApiKey }: { modelApiKey?: string } = {}): Promise<ProcessCluster> {
  const [database, issuer, upstream] = await Promise.all([
    createTestDatabase(),
    startTestIssuer(),
    startOpenAIFake(modelApiKey === undefined ? {} : { apiKey: modelApiKey }),
  ]);
  const shared = {
    DATABASE_URL: database.url!,
    SECRET_KEY: 'c'.repeat(64),
    OIDC_ISSUER: issuer.issuer,
    OIDC_CLIENT_ID: 'test-client',
    OIDC_AUDIENCE: issuer.audience,
    OPENAI_BASE_URL: upstream.baseUrl,
    OPENAI_API_KEY: modelApiKey ?? 'sk-x',
  };
  const servers: ServerProcess[] = [];
  return {
    database,
    issuer,
    upstream,
    servers,
    async start(env = {}) {
      const server = await startServerProcess({ ...shared, ...env });
      servers.push(server);
      return server;
    },
    async close() {
      await Promise.all(servers.map(stopServerProcess));
      await Promise.all([database.cleanup(), issuer.close(), upstream.close()]);
    },
  };
}

/**
 * The cluster of the enclosing describe block: started before its tests (within `startTimeoutMs`) and
 * closed after them, after the block's own afterAll hooks (registered later, so run first).
 */
export function useProcessCluster(options: { modelApiKey?: string } = {}, startTimeoutMs = 60_000): ProcessCluster {
  let cluster: ProcessCluster | undefined;
  beforeAll(async () => {
    cluster = await startProcessCluster(options);
  }, startTimeoutMs);
  afterAll(() => cluster?.close());
  const started = () => {
    if (!cluster) throw new Error('the process cluster is used before its beforeAll hook started it');
    return cluster;
  };
  return {
    get database() {
      return started().database;
    },
    get issuer() {
      return started().issuer;
    },
    get upstream() {
      return started().upstream;
    },
    get servers() {
      return started().servers;
    },
    start: (env) => started().start(env),
    close: () => started().close(),
  };
}
