// What the bench calls: the targets (the direct call, Tollbooth's four paths, Portkey), the paths that
// group them, one call and what came back of it, and the check that a target answers what it should.
import { Pool } from 'undici';
import type { Part } from './options.ts';

export type TargetName =
  | 'direct'
  | 'direct-stream'
  | 'portkey'
  | 'portkey-stream'
  | 'tollbooth'
  | 'tollbooth-stream'
  | 'tollbooth-openai'
  | 'tollbooth-openai-stream';

/** What came back: 200 answers in full; other statuses; transport failures; 200 streams without their answer or end. */
export interface Tally {
  ok: number;
  notOk: number;
  failed: number;
  incomplete: number;
}
export const newTally = (): Tally => ({ ok: 0, notOk: 0, failed: 0, incomplete: 0 });

export interface Target {
  name: TargetName;
  side: 'direct' | 'tollbooth' | 'portkey';
  /** How a stream ends when it is complete; null for a blocking call. */
  stream: 'openai' | 'dify' | null;
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  tally: Tally;
}

/** One of Tollbooth's paths with the direct call and the Portkey call it is compared with. */
export interface PathSpec {
  /** The --only values that select it. */
  parts: Part[];
  label: string;
  tollbooth: TargetName;
  direct: TargetName;
  portkey: TargetName;
}
export const PATHS: PathSpec[] = [
  { parts: ['blocking'], label: 'Dify blocking', tollbooth: 'tollbooth', direct: 'direct', portkey: 'portkey' },
  { parts: ['streaming'], label: 'Dify streaming', tollbooth: 'tollbooth-stream', direct: 'direct-stream', portkey: 'portkey-stream' },
  { parts: ['openai', 'openai-blocking'], label: 'OpenAI blocking', tollbooth: 'tollbooth-openai', direct: 'direct', portkey: 'portkey' },
  {
    parts: ['openai', 'openai-streaming'],
    label: 'OpenAI streaming',
    tollbooth: 'tollbooth-openai-stream',
    direct: 'direct-stream',
    portkey: 'portkey-stream',
  },
];

export const firstErrors: string[] = [];
const noteError = (text: string) => {
  if (firstErrors.length < 10) firstErrors.push(text);
};

/** The upstream's first text chunk (bench/gateway/upstream.ts): its arrival is a stream's first answer byte. */
const FIRST_TEXT = Buffer.from('Hello from');
export const elapsedUs = (started: bigint) => Number(process.hrtime.bigint() - started) / 1000;

function streamCompleted(kind: 'openai' | 'dify', text: string): boolean {
  if (kind === 'openai') return text.trimEnd().endsWith('data: [DONE]') && !text.includes('data: {"error"');
  return text.includes('"event":"message_end"') && !text.includes('"event":"error"');
}

/**
 * One call. Returns microseconds from `started` to the answer's first text byte (a stream) or to
 * its last byte (a blocking call), or -1 if it failed; counts the outcome in the target's tally.
 */
export async function callOnce(pool: Pool, target: Target, started: bigint): Promise<number> {
  try {
    const { statusCode, body } = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: target.body });
    if (statusCode !== 200) {
      const text = await body.text();
      target.tally.notOk++;
      noteError(`${target.name} ${statusCode}: ${text.slice(0, 300)}`);
      return -1;
    }
    if (target.stream === null) {
      await body.dump({ limit: 1 << 20 });
      target.tally.ok++;
      return elapsedUs(started);
    }
    let firstUs = -1;
    const parts: Buffer[] = [];
    let tail: Buffer | null = null;
    for await (const part of body as AsyncIterable<Buffer>) {
      parts.push(part);
      if (firstUs >= 0) continue;
      const window: Buffer = tail ? Buffer.concat([tail, part]) : part;
      if (window.includes(FIRST_TEXT)) firstUs = elapsedUs(started);
      else tail = window.subarray(Math.max(0, window.length - FIRST_TEXT.length + 1));
    }
    const text = Buffer.concat(parts).toString();
    if (firstUs < 0 || !streamCompleted(target.stream, text)) {
      target.tally.incomplete++;
      noteError(`${target.name} incomplete stream: ${text.slice(-300)}`);
      return -1;
    }
    target.tally.ok++;
    return firstUs;
  } catch (error) {
    target.tally.failed++;
    noteError(`${target.name} request failed: ${(error as Error).message}`);
    return -1;
  }
}

export const newPool = (origin: string, connections: number) =>
  new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 120_000, keepAliveMaxTimeout: 120_000, headersTimeout: 60_000, bodyTimeout: 60_000 });

const EXPECTED_TEXT = 'Hello from the benchmark upstream.';

/** Calls a target once (fetch, outside the tallies) and says what is wrong with its answer, or null. */
export async function answerProblem(target: Target): Promise<string | null> {
  const response = await fetch(target.origin + target.path, { method: 'POST', headers: target.headers, body: target.body });
  const text = await response.text();
  if (response.status !== 200) return `${response.status} ${text.slice(0, 500)}`;
  let answer: string | undefined;
  try {
    if (target.stream === null) {
      const parsed = JSON.parse(text) as { answer?: string; choices?: { message?: { content?: string } }[] };
      answer = parsed.answer ?? parsed.choices?.[0]?.message?.content;
    } else {
      if (!streamCompleted(target.stream, text)) return `the stream did not end as a complete ${target.stream} stream: ${text.slice(-500)}`;
      answer = '';
      for (const line of text.split('\n')) {
        if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
        const event = JSON.parse(line.slice(6)) as { event?: string; answer?: string; choices?: { delta?: { content?: string } }[] };
        answer += target.stream === 'dify' ? (event.event === 'message' ? (event.answer ?? '') : '') : (event.choices?.[0]?.delta?.content ?? '');
      }
    }
  } catch (error) {
    return `an answer that does not parse (${(error as Error).message}): ${text.slice(0, 500)}`;
  }
  return answer === EXPECTED_TEXT ? null : `the answer ${JSON.stringify(answer)} instead of ${JSON.stringify(EXPECTED_TEXT)}: ${text.slice(0, 500)}`;
}

export function addTallies(tallies: Tally[]): Tally {
  const sum = newTally();
  for (const tally of tallies) {
    sum.ok += tally.ok;
    sum.notOk += tally.notOk;
    sum.failed += tally.failed;
    sum.incomplete += tally.incomplete;
  }
  return sum;
}

export function subtractTally(after: Tally, before: Tally): Tally {
  return {
    ok: after.ok - before.ok,
    notOk: after.notOk - before.notOk,
    failed: after.failed - before.failed,
    incomplete: after.incomplete - before.incomplete,
  };
}
