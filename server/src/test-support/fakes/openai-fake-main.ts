// Runs the OpenAI-compatible model fake as its own process for the browser tests
// (e2e/start-server.mjs starts it and points OPENAI_BASE_URL and OPENAI_API_KEY at it), so the
// OpenAI model names are answered by a real provider there and paid calls are really charged. It
// answers with an echo of the last user message, as the demo model quotes the prompt.
// Usage: node --import tsx src/test-support/fakes/openai-fake-main.ts <port> <api key>
import { startOpenAIFake } from './openai-fake.ts';

const port = Number(process.argv[2] ?? 0);
const apiKey = process.argv[3] ?? 'sk-e2e-model-key';
const fake = await startOpenAIFake({ apiKey, port });
fake.setBehaviour({
  text: (request) => {
    const body = request.body as { model?: string; messages?: { role: string; content: unknown }[] } | undefined;
    const asked = body?.messages?.filter((message) => message.role === 'user').at(-1)?.content;
    // Content is a string, or (with images) an array of parts whose text parts are the words.
    const text = Array.isArray(asked)
      ? asked.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('')
      : String(asked ?? '');
    return `Fake model (${body?.model ?? 'unknown'}) answers: ${text}`;
  },
  usage: { inputTokens: 12, outputTokens: 8 },
});
// Keep the process's memory flat over a long run: the recorded requests are not needed here.
setInterval(() => fake.requests.splice(0), 10_000).unref();
console.log(`OpenAI model fake listening at ${fake.baseUrl}`);
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
