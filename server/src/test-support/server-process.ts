// A real Tollbooth server process (src/main.ts) on a free loopback port, for tests that need more
// than one process or kill one (PostgreSQL only: PGlite is one process's embedded database).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ServerProcess {
  base: string;
  child: ChildProcess;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Starts the server with env over the test's own environment; resolves once /api/health answers. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-proc-')),
      // TEST_SERVER_LOG_LEVEL=warn shows what the processes log while a test runs.
      LOG_LEVEL: process.env.TEST_SERVER_LOG_LEVEL ?? 'error',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {}
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${child.exitCode ?? child.signalCode})`);
    if (attempt > 300) throw new Error('server did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { base, child };
}

/** Stops a server process gracefully (SIGTERM) and resolves once it has exited. */
export function stopServerProcess({ child }: ServerProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A JSON request with a bearer token; the body comes back parsed (null when it is not JSON). */
export async function sendJson(base: string, method: string, url: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}
