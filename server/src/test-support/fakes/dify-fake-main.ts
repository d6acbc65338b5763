// Runs the Dify fake as its own process for the browser tests (e2e/start-server.mjs starts it):
// one advanced-chat app with an optional input, answering with an echo of the query, and on the next
// port a completion app with a required input.
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
// A second app on the next port: a Dify text generator (completion mode) with a required input, for
// the journeys of a completion workflow (issue 25). Same API key.
const completion = await startDifyFake({
  apiKey,
  port: port === 0 ? 0 : port + 1,
  app: {
    mode: 'completion',
    name: 'Fake Summary Generator',
    description: 'A Dify text generator answered by the fake',
    userInputForm: [{ paragraph: { label: 'Text', variable: 'text', required: true } }],
  },
});
completion.setBehaviour({
  text: (request) => `Dify summary: ${String((request.body as { inputs?: { text?: string } } | undefined)?.inputs?.text ?? '')}`,
  usage: { inputTokens: 10, outputTokens: 4 },
});
console.log(`Dify completion fake listening at ${completion.baseUrl}`);
const stop = () => void Promise.all([fake.close(), completion.close()]).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
