// A real Tollbooth server process (src/main.ts) on a free loopback port, for tests that need more
// than one process or kill one (PostgreSQL only: PGlite is one process's embedded database).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ServerProcess {
  base: string;
  child: ChildProcess;
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * Whether the process `pid` holds the listening TCP socket of `port` (Linux: its socket fds against
 * /proc/net/tcp*); null where /proc cannot say.
 */
function listensOn(pid: number, port: number): boolean | null {
  let inodes: Set<string>;
  try {
    inodes = new Set(
      readdirSync(`/proc/${pid}/fd`)
        .map((fd) => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${fd}`);
          } catch {
            return '';
          }
        })
        .filter((link) => link.startsWith('socket:['))
        .map((link) => link.slice('socket:['.length, -1)),
    );
  } catch {
    return null;
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && inodes.has(fields[9] ?? '')) return true;
    }
  }
  return false;
}

/**
 * Starts the server with env over the test's own environment; resolves once /api/health answers
 * from it. The port is free when picked but not held: another process (another test file's server)
 * may take it before this one listens, and would answer the health check in its place, so the
 * check counts only once this process holds the port; a start that lost its port is tried again on another.
 */
export async function startServerProcess(
  env: Record<string, string>,
  { port: fixedPort, startSeconds = 60 }: { port?: number; startSeconds?: number } = {},
): Promise<ServerProcess> {
  for (let start = 1; ; start++) {
    // A fixed port (a process restarted behind a load balancer) is not traded for another.
    const port = fixedPort ?? (await freePort());
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tollbooth-proc-')),
        // TEST_SERVER_LOG_LEVEL=warn shows what the processes log while a test runs.
        LOG_LEVEL: process.env.TEST_SERVER_LOG_LEVEL ?? 'error',
        // No load balancer to wait for: SIGTERM drains without the grace period (http/drain.ts).
        SHUTDOWN_GRACE_SECONDS: '0',
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const base = `http://127.0.0.1:${port}`;
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    for (let attempt = 0; !exited(); attempt++) {
      try {
        if ((await fetch(`${base}/api/health`)).ok && child.pid !== undefined && listensOn(child.pid, port) !== false) return { base, child };
      } catch {}
      // A minute (startSeconds): a start on a machine whose two cores other test files keep busy.
      if (attempt > startSeconds * 10) {
        child.kill('SIGKILL');
        throw new Error('server did not start');
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (start >= 3 || fixedPort !== undefined) throw new Error(`the server exited (${child.exitCode ?? child.signalCode})`);
  }
}

/**
 * Runs a command of src/main.ts (`migrate`, `operator grant …`, or a start that should be refused)
 * with env over the test's environment (none of its DATABASE_URL unless given), and resolves with
 * its exit code and output once it exits.
 */
export function runServerCommand(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const childEnv: Record<string, string | undefined> = { ...process.env, DATABASE_URL: undefined, LOG_LEVEL: 'error', ...env };
  for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: path.resolve(import.meta.dirname, '../..'), env: childEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Stops a server process gracefully (SIGTERM) and resolves once it has exited. */
export function stopServerProcess({ child }: ServerProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A request with a bearer token and, when given, a JSON body; `headers` are added, `signal` can abort it. */
export function sendRequest(
  base: string,
  method: string,
  url: string,
  token: string,
  body?: unknown,
  { headers = {}, signal }: { headers?: Record<string, string>; signal?: AbortSignal } = {},
) {
  return fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  });
}

/** A JSON request with a bearer token; the body comes back parsed (null when it is not JSON). */
export async function sendJson(base: string, method: string, url: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await sendRequest(base, method, url, token, body, { headers });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/**
 * `connections` loops of paid calls (`query` as the input) against a server process until stop(),
 * which waits for them: each answered call's id goes into `answered`, each refusal into `refused`
 * (its status and body), and a loop ends when the process is gone (a killed server).
 */
export function callUnderLoad(
  base: string,
  callUrl: string,
  key: string,
  { query, connections, answered = new Set<string>() }: { query: string; connections: number; answered?: Set<string> },
) {
  const refused: string[] = [];
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      try {
        const result = await sendJson(base, 'POST', callUrl, key, { inputs: { query } });
        if (result.status === 200) answered.add(result.body.id);
        else refused.push(`${result.status} ${JSON.stringify(result.body)}`.slice(0, 300));
      } catch {
        return; // the process is gone
      }
    }
  };
  const loops = Array.from({ length: connections }, loop);
  return {
    answered,
    refused,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/**
 * callUnderLoad against `victim` until it has answered `answers` calls (or refused one), then kill -9
 * under that load, and the loops waited for: the calls it answered and the refusals.
 */
export async function killUnderLoad(
  victim: ServerProcess,
  callUrl: string,
  key: string,
  { query, connections, answers }: { query: string; connections: number; answers: number },
) {
  const load = callUnderLoad(victim.base, callUrl, key, { query, connections });
  const { answered, refused } = load;
  while (answered.size < answers && refused.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  victim.child.kill('SIGKILL');
  await load.stop();
  return { answered, refused };
}

/**
 * On a server process: a live public prompt app of `owner`'s (`name`, priced `priceCents`) and an API
 * key of `caller`'s named `keyName`; throws unless the app is created and set live. Its completion
 * URL (relative to the base) and the key.
 */
export async function liveAppAndKey(
  base: string,
  owner: string,
  caller: string,
  { name, priceCents, keyName }: { name: string; priceCents: number; keyName: string },
) {
  const created = await sendJson(base, 'POST', '/api/app/', owner, { name, type: 'prompt', visibility: 'public', price_cents: priceCents });
  if (created.status !== 201) throw new Error(`creating the app answered ${created.status}`);
  const live = await sendJson(base, 'PATCH', `/api/app/${created.body.slug}/update_status/`, owner, { status: 'live' });
  if (live.status !== 200) throw new Error(`setting the app live answered ${live.status}`);
  const key = (await sendJson(base, 'POST', '/api/keys/', caller, { name: keyName })).body.key as string;
  return { slug: created.body.slug as string, callUrl: `/api/app/${created.body.slug}/completion-messages`, key };
}
