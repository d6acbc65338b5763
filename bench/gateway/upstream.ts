// A loopback fake OpenAI-compatible upstream for the gateway benchmark: POST /v1/chat/completions
// answers at once with a fixed small chat.completion (with usage). It runs in its own process so
// the load generator and the gateways never share its event loop. Prints {"port": N} when ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const ANSWER = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4-turbo',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the benchmark upstream.' }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
  system_fingerprint: 'fp_bench',
});
const ANSWER_LENGTH = Buffer.byteLength(ANSWER);

let calls = 0;
const server = createServer({ keepAlive: true, keepAliveTimeout: 120_000 }, (request, response) => {
  // The body is read (as a real upstream would) but not parsed: the answer never depends on it.
  request.on('data', () => {});
  request.on('end', () => {
    if (request.method === 'POST' && request.url === '/v1/chat/completions') {
      calls++;
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER_LENGTH });
      response.end(ANSWER);
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
