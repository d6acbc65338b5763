// Builds a real Tollbooth app for API tests: fresh database, loopback OIDC issuer, no port.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type App, type AppDependencies, buildApp } from '../app.ts';
import { type Config, loadConfig } from '../config.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { startTestIssuer, type TestIssuer } from './oidc-issuer.ts';

export interface TestContext {
  app: App;
  config: Config;
  database: TestDatabase;
  issuer: TestIssuer;
  /** An access token for a subject, with profile claims. */
  tokenFor(subject: string, claims?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export const TEST_SECRET_KEY = 'a'.repeat(64);

export async function createTestContext(env: Record<string, string> = {}, options: { logger?: AppDependencies['logger'] } = {}): Promise<TestContext> {
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
  const app = await buildApp({ config, db: database.db, logger: options.logger ?? false });
  await app.ready();
  return {
    app,
    config,
    database,
    issuer,
    tokenFor: (subject, claims = {}) => issuer.sign({ sub: subject, email: `${subject}@example.com`, name: `User ${subject}`, ...claims }),
    async close() {
      await app.close();
      await Promise.all([database.cleanup(), issuer.close()]);
    },
  };
}
