// Starts a throw-away Tollbooth for the browser tests: a fresh DATA_DIR, and with DATABASE_URL a
// fresh database on that server (dropped on exit). The web app is built first if it is stale, and
// the server compiled as `npm start` compiles it.
import { execSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(import.meta.dirname, '..');
const port = process.env.E2E_PORT ?? '3100';
execSync('node scripts/ensure-web-build.mjs', { cwd: root, stdio: 'inherit' });
// The server as `npm start` runs it: compiled (server/dist), which the tests' own servers start too (tests/support.ts).
execSync('node scripts/build.mjs', { cwd: path.join(root, 'server'), stdio: 'inherit' });

const dataDir = mkdtempSync(path.join(tmpdir(), 'tollbooth-e2e-'));
const env = {
  ...process.env,
  PORT: port,
  HOST: '127.0.0.1',
  PUBLIC_URL: `http://localhost:${port}`,
  DATA_DIR: dataDir,
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  // Every journey signs up from 127.0.0.1; the per-address sign-up limit (5 an hour) is for real clients.
  SIGNUP_LIMIT_PER_ADDRESS_PER_HOUR: '10000',
  // Workflow apps call the Dify fake on loopback.
  ALLOW_PRIVATE_PROVIDER_URLS: 'on',
  // No load balancer in front: stopping drains without the grace period.
  SHUTDOWN_GRACE_SECONDS: '0',
};
delete env.OIDC_ISSUER;

let dropDatabase = async () => {};
if (process.env.DATABASE_URL) {
  const name = `tb_e2e_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
  dropDatabase = async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  };
}

// The Dify fake the workflow journeys wrap (E2E_DIFY_PORT, default E2E_PORT + 1000).
const difyPort = process.env.E2E_DIFY_PORT ?? String(Number(port) + 1000);
const dify = spawn(process.execPath, ['--import', 'tsx', 'src/test-support/fakes/dify-fake-main.ts', difyPort, 'app-e2e-dify-key'], {
  cwd: path.join(root, 'server'),
  stdio: 'inherit',
});

// A real model provider for the OpenAI model names (the prompts' default among them): the
// OpenAI-compatible fake (E2E_OPENAI_PORT, default E2E_PORT + 2000), so paid calls are answered by a
// configured provider and charged. Anthropic and Gemini names stay on the demo model, never charged.
const openaiPort = process.env.E2E_OPENAI_PORT ?? String(Number(port) + 2000);
const openaiKey = 'sk-e2e-model-key';
const openai = spawn(process.execPath, ['--import', 'tsx', 'src/test-support/fakes/openai-fake-main.ts', openaiPort, openaiKey], {
  cwd: path.join(root, 'server'),
  stdio: 'inherit',
});
env.OPENAI_BASE_URL = `http://127.0.0.1:${openaiPort}/v1`;
env.OPENAI_API_KEY = openaiKey;
delete env.ANTHROPIC_API_KEY;
delete env.GEMINI_API_KEY;

const server = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], { cwd: path.join(root, 'server'), env, stdio: 'inherit' });
const stop = () => {
  dify.kill('SIGTERM');
  openai.kill('SIGTERM');
  server.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', async (code) => {
  dify.kill('SIGTERM');
  openai.kill('SIGTERM');
  await dropDatabase().catch((error) => console.error('could not drop the e2e database:', error.message));
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
