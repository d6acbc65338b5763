// Writes the API's OpenAPI document, as the real app serves it at /api/docs/json, to a file:
// `npm run lint:openapi` lints what it writes with Redocly (redocly.yaml at the repository root).
// Usage: node --import tsx src/lifecycle/write-openapi-document.ts <file>
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../app.ts';
import { openPglite } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { loadConfig } from '../platform/config.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: write-openapi-document.ts <file>');
  process.exit(2);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-openapi-'));
// Only what the document needs: a throwaway data folder and key, no provider, the embedded issuer
// (the default). PUBLIC_URL is a reserved test domain: the document's server is the deployment's own.
const config = loadConfig({ DATA_DIR: dataDir, SECRET_KEY: 'a'.repeat(64), PUBLIC_URL: 'https://tollbooth.test', LOG_LEVEL: 'silent' });
const db = await openPglite(null);
try {
  await migrate(db);
  const app = await buildApp({ config, db, logger: false });
  await app.ready();
  const response = await app.inject({ method: 'GET', url: '/api/docs/json' });
  if (response.statusCode !== 200) throw new Error(`GET /api/docs/json answered ${response.statusCode}`);
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, `${JSON.stringify(response.json(), null, 2)}\n`);
  await app.close();
  console.log(`wrote ${file}`);
} finally {
  await db.close();
  rmSync(dataDir, { recursive: true, force: true });
}
