// Runs the Dify fake as its own process for the browser tests (e2e/start-server.mjs starts it):
// one advanced-chat app with an optional input, answering with an echo of the query.
// Usage: node --import tsx src/test-support/fakes/dify-fake-main.ts <port> <api key>
import { startDifyFake } from './dify-fake.ts';

const port = Number(process.argv[2] ?? 0);
const apiKey = process.argv[3] ?? 'app-e2e-dify-key';
const fake = await startDifyFake({
  apiKey,
  port,
  app: {
    mode: 'advanced-chat',
    name: 'Fake Support Chatflow',
    description: 'A Dify chatflow answered by the fake',
    userInputForm: [{ 'text-input': { label: 'Customer name', variable: 'customer', required: false, max_length: 40 } }],
  },
});
fake.setBehaviour({
  text: (request) => `Dify echo: ${String((request.body as { query?: string } | undefined)?.query ?? '')}`,
  usage: { inputTokens: 12, outputTokens: 6 },
});
console.log(`Dify fake listening at ${fake.baseUrl}`);
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
