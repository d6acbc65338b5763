// A loopback fake OpenAI-compatible upstream for the gateway benchmark: POST /v1/chat/completions
// answers at once with a fixed small chat.completion (with usage) or, when the body asks for
// `"stream": true`, with OpenAI's Server-Sent Events stream of chat.completion.chunk objects:
// the role chunk, the text in three chunks, the finish chunk, the usage chunk (empty choices) when
// `stream_options.include_usage` is set, then `data: [DONE]` (what api.openai.com sends, and what
// server/src/test-support/fakes/openai-fake.ts fakes for the tests). Each event is written on its
// own, as a real upstream sends them, but without waiting between them. It runs in its own process
// so the load generator and the gateways never share its event loop. Prints {"port": N} when ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const TEXT = 'Hello from the benchmark upstream.';
/** The text's chunks in a stream; the load generator times the first answer byte by the first one. */
const TEXT_CHUNKS = ['Hello from', ' the benchmark', ' upstream.'];
const ID = 'chatcmpl-bench';
const CREATED = 1_700_000_000;
const MODEL = 'gpt-4-turbo';
const USAGE = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };

const ANSWER = JSON.stringify({
  id: ID,
  object: 'chat.completion',
  created: CREATED,
  model: MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: TEXT }, logprobs: null, finish_reason: 'stop' }],
  usage: USAGE,
  system_fingerprint: 'fp_bench',
});
const ANSWER_LENGTH = Buffer.byteLength(ANSWER);

/** The stream's events, precomputed: with include_usage every chunk has `usage: null` and one more chunk carries it. */
function streamEvents(includeUsage: boolean): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({
      id: ID,
      object: 'chat.completion.chunk',
      created: CREATED,
      model: MODEL,
      system_fingerprint: 'fp_bench',
      choices,
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    })}\n\n`;
  return [
    chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]),
    ...TEXT_CHUNKS.map((text) => chunk([{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]),
    ...(includeUsage ? [chunk([], { usage: USAGE })] : []),
    'data: [DONE]\n\n',
  ];
}
const STREAM = streamEvents(false);
const STREAM_WITH_USAGE = streamEvents(true);

interface ChatRequest {
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

let calls = 0;
const server = createServer({ keepAlive: true, keepAliveTimeout: 120_000 }, (request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    if (request.method === 'POST' && request.url === '/v1/chat/completions') {
      calls++;
      let body: ChatRequest = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString()) as ChatRequest;
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end('{"error":{"message":"We could not parse the JSON body of your request.","type":"invalid_request_error","param":null,"code":null}}');
        return;
      }
      if (body.stream !== true) {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER_LENGTH });
        response.end(ANSWER);
        return;
      }
      const events = body.stream_options?.include_usage === true ? STREAM_WITH_USAGE : STREAM;
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      for (let i = 0; i < events.length - 1; i++) response.write(events[i]);
      response.end(events[events.length - 1]);
    } else if (request.method === 'GET' && request.url === '/calls') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ calls }));
    } else {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"not found"}}');
    }
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 130_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
