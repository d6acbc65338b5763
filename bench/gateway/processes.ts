// The processes the bench starts (the fake upstream, the servers, Portkey), the ports they take, and
// what is undone at the end, in reverse order: shutdown() stops them all.
import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const children: ChildProcess[] = [];
export const cleanups: (() => Promise<void>)[] = [];

export { freePort } from '../free-port.ts';

export interface Child {
  process: ChildProcess;
  output: () => string;
  /** Rejects if the process exits before stop() is called. */
  exitedEarly: Promise<never>;
  stop: () => Promise<void>;
}

export function startChild(name: string, args: string[], options: { cwd: string; env?: Record<string, string>; quiet?: boolean }): Child {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.quiet ? 'ignore' : 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let stopping = false;
  const exitedEarly = new Promise<never>((_resolve, reject) => {
    child.on('exit', (code, signal) => {
      if (stopping || finished) return;
      reject(new Error(`${name} exited early (code ${code}, signal ${signal}):\n${output}`));
    });
  });
  exitedEarly.catch(() => undefined);
  return {
    process: child,
    output: () => output,
    exitedEarly,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 12_000);
      await exited;
      clearTimeout(forced);
    },
  };
}

export async function waitFor<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== null) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
}

let finished = false;

export async function shutdown() {
  finished = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error(`cleanup: ${(error as Error).message}`);
    }
  }
  cleanups.length = 0;
}
