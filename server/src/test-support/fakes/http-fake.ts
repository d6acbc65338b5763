// What the model-provider fakes share: a loopback HTTP server on 127.0.0.1 that records every
// request it receives, and a behaviour the test can change at any time (answer text and usage,
// error status, delays, malformed bodies, streams cut or left hanging mid-way).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
  /** OpenAI's prompt_tokens_details.cached_tokens (part of inputTokens). */
  cachedInputTokens?: number;
}

export interface RecordedRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  rawBody: string;
  /** The client's port: two requests with the same one came over the same (keep-alive) connection. */
  remotePort: number | undefined;
  /** True once the client closed the connection before the fake finished answering. */
  aborted: boolean;
  /** Resolves when the exchange is over: answered in full, or the connection closed. */
  closed: Promise<void>;
  /** Streaming: how many frames were written so far. */
  framesWritten: number;
}

export interface FakeBehaviour {
  /** The answer text, or a function of the request (e.g. to echo the prompt). */
  text: string | ((request: RecordedRequest) => string);
  /** The usage reported; null leaves usage out (as some OpenAI-compatible servers do). */
  usage: FakeUsage | null | ((request: RecordedRequest) => FakeUsage | null);
  /** How a streamed answer is split into text chunks; the default is a few words per chunk. */
  chunks: (text: string) => string[];
  /** Anything but 200 answers the provider's error body with this status. */
  status: number;
  errorMessage: string;
  /** Wait this long before answering at all (for timeouts). */
  delayMs: number;
  /** Wait this long between streamed events. */
  chunkDelayMs: number;
  /** Answer a body (or, streaming, a first event) that is not JSON. */
  malformed: boolean;
  /** Streaming: destroy the connection after this many text chunks, without the provider's end marker. */
  cutStreamAfterChunks: number | null;
  /** Streaming: stop writing after this many text chunks and keep the connection open. */
  hangAfterChunks: number | null;
  /**
   * Streaming: stop writing after this many frames of any kind (pings and events too) and keep the
   * connection open; a function decides per request (e.g. from a marker in its body).
   */
  hangAfterFrames: number | null | ((request: RecordedRequest) => number | null);
  /**
   * A request asking for JSON with a schema is answered with a value valid against it (the fakes'
   * structured output), instead of `text`. Off by default: tests of invalid answers set `text`.
   */
  json: boolean;
  /**
   * A request offering tools (and not answering a tool call) is answered with a call of its first
   * tool (or the one tool_choice names), its arguments valid against the tool's schema. On by default.
   */
  callTools: boolean;
}

export const DEFAULT_FAKE_BEHAVIOUR: FakeBehaviour = {
  text: 'Hello from the fake model.',
  usage: { inputTokens: 11, outputTokens: 7 },
  chunks: (text) => splitWords(text, 2),
  status: 200,
  errorMessage: 'The fake upstream failed on purpose.',
  delayMs: 0,
  chunkDelayMs: 0,
  malformed: false,
  cutStreamAfterChunks: null,
  hangAfterChunks: null,
  hangAfterFrames: null,
  json: false,
  callTools: true,
};

/** A value valid against a (simple) JSON Schema: every property, the first enum value or variant, one array item. */
export function exampleFromSchema(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 8) return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.const !== undefined) return s.const;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const variants = s[key];
    if (Array.isArray(variants) && variants.length > 0)
      return exampleFromSchema(variants.find((v) => (v as { type?: string }).type !== 'null') ?? variants[0], depth + 1);
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? s.type[0]) : s.type;
  switch (type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, exampleFromSchema(property, depth + 1)]));
    }
    case 'array':
      return [exampleFromSchema(s.items, depth + 1)];
    case 'string':
      return 'fake';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return s.properties ? exampleFromSchema({ ...s, type: 'object' }, depth + 1) : {};
  }
}

export interface FakeProviderServer {
  /** The base URL to configure the provider with. */
  baseUrl: string;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Merges into the current behaviour. */
  setBehaviour(behaviour: Partial<FakeBehaviour>): void;
  /** Back to the defaults (keeps the recorded requests). */
  resetBehaviour(): void;
  readonly behaviour: FakeBehaviour;
  /** The last request received (throws when there is none). */
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

/** One answer being written: the text and usage resolved for the request. */
export interface FakeExchange {
  request: RecordedRequest;
  behaviour: FakeBehaviour;
  text: string;
  usage: FakeUsage | null;
  res: ServerResponse;
}

/** One streamed frame; text frames count for cutStreamAfterChunks and hangAfterChunks. */
export interface StreamFrame {
  frame: string;
  text?: boolean;
}

export type FakeHandler = (exchange: FakeExchange) => Promise<void> | void;

export async function startFakeServer(handler: FakeHandler, baseUrlPath = '', port = 0): Promise<FakeProviderServer> {
  const requests: RecordedRequest[] = [];
  let behaviour: FakeBehaviour = { ...DEFAULT_FAKE_BEHAVIOUR };

  const server = createServer((req, res) => {
    void (async () => {
      const rawBody = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let resolveClosed!: () => void;
      const record: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: parseBody(rawBody),
        rawBody,
        remotePort: req.socket.remotePort,
        aborted: false,
        framesWritten: 0,
        closed: new Promise<void>((resolve) => {
          resolveClosed = resolve;
        }),
      };
      res.on('close', () => {
        record.aborted = !res.writableFinished;
        resolveClosed();
      });
      requests.push(record);
      const current = behaviour;
      await sleep(current.delayMs, res);
      if (res.destroyed) return;
      const text = typeof current.text === 'function' ? current.text(record) : current.text;
      const usage = typeof current.usage === 'function' ? current.usage(record) : current.usage;
      await handler({ request: record, behaviour: current, text, usage, res });
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`fake failed: ${String(error)}`);
    });
  });
  // Keep idle connections longer than the gateway's pool does (undici, 30 s), as hosted providers do:
  // with Node's 5 s default the fake could close a kept-alive socket just as a loaded gateway reused
  // it, and a paid call failed with ECONNRESET for a reason no real provider shows.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: listeningPort } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${listeningPort}${baseUrlPath}`,
    requests,
    setBehaviour(next) {
      behaviour = { ...behaviour, ...next };
    },
    resetBehaviour() {
      behaviour = { ...DEFAULT_FAKE_BEHAVIOUR };
    },
    get behaviour() {
      return behaviour;
    },
    lastRequest() {
      const last = requests.at(-1);
      if (!last) throw new Error('The fake has received no request');
      return last;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive and hanging connections would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendMalformedJson(res: ServerResponse): void {
  const text = '{"this is": not JSON';
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Writes an SSE answer frame by frame, applying the stream behaviours (delays, cut, hang). */
export async function sendEventStream(exchange: FakeExchange, frames: StreamFrame[]): Promise<void> {
  const { res, behaviour } = exchange;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  let textFrames = 0;
  const hangAfterFrames = typeof behaviour.hangAfterFrames === 'function' ? behaviour.hangAfterFrames(exchange.request) : behaviour.hangAfterFrames;
  for (const { frame, text } of frames) {
    if (res.destroyed) return;
    if (hangAfterFrames !== null && exchange.request.framesWritten >= hangAfterFrames) return;
    if (text) {
      if (behaviour.cutStreamAfterChunks !== null && textFrames >= behaviour.cutStreamAfterChunks) {
        res.destroy();
        return;
      }
      if (behaviour.hangAfterChunks !== null && textFrames >= behaviour.hangAfterChunks) return;
      textFrames++;
    }
    res.write(frame);
    exchange.request.framesWritten++;
    await sleep(behaviour.chunkDelayMs, res);
  }
  if (behaviour.cutStreamAfterChunks !== null) {
    // Fewer text chunks than the cut point: cut before the end marker anyway.
    res.destroy();
    return;
  }
  res.end();
}

export function splitWords(text: string, wordsPerChunk: number): string[] {
  const words = text.match(/\s*\S+|\s+$/g) ?? [];
  const chunks: string[] = [];
  for (let index = 0; index < words.length; index += wordsPerChunk) chunks.push(words.slice(index, index + wordsPerChunk).join(''));
  return chunks.length > 0 ? chunks : [text];
}

export function header(request: RecordedRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function sleep(ms: number, res: ServerResponse): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
    res.once('close', done);
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
