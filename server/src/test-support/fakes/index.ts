export { type AnthropicFakeOptions, startAnthropicFake } from './anthropic-fake.ts';
export { type DifyFake, type DifyFakeApp, type DifyMode, startDifyFake } from './dify-fake.ts';
export { type GeminiFakeOptions, startGeminiFake } from './gemini-fake.ts';
export { DEFAULT_FAKE_BEHAVIOUR, type FakeBehaviour, type FakeProviderServer, type FakeUsage, header, type RecordedRequest } from './http-fake.ts';
export { type OpenAIFakeOptions, startOpenAIFake } from './openai-fake.ts';
