// The behaviour every HTTP model provider must show against its fake, as one vitest suite: the
// answer and usage blocking and streaming, and each failure mapped to the gateway's errors.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors.ts';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../../providers/types.ts';
import type { FakeProviderServer } from './http-fake.ts';

export interface ProviderContractOptions {
  name: string;
  startFake(): Promise<FakeProviderServer>;
  createProvider(baseUrl: string): ModelProvider;
  /** The provider's API key, which must never show in an error message. */
  apiKey: string;
  upstreamModel: string;
}

export function baseRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'test-model',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello.' },
    ],
    signal: new AbortController().signal,
    timeoutMs: 5_000,
    ...overrides,
  };
}

export async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The rejection of a promise, failing the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/**
 * A fake provider for the describe block it is called in: started before its tests, its behaviour
 * reset before each, closed after them. The answer stands for the fake once it has started.
 */
export function fakeForBlock(start: () => Promise<FakeProviderServer>): FakeProviderServer {
  let fake: FakeProviderServer | undefined;
  beforeAll(async () => {
    fake = await start();
  });
  afterAll(() => fake?.close());
  beforeEach(() => fake!.resetBehaviour());
  return new Proxy({} as FakeProviderServer, { get: (_target, key) => Reflect.get(fake!, key) });
}

export function describeProviderContract(options: ProviderContractOptions): void {
  describe(`${options.name}: the provider contract`, () => {
    let fake: FakeProviderServer;
    let provider: ModelProvider;
    const request = (overrides: Partial<ModelRequest> = {}) => baseRequest({ model: options.upstreamModel, ...overrides });

    beforeEach(async () => {
      fake ??= await options.startFake();
      fake.resetBehaviour();
      provider = options.createProvider(fake.baseUrl);
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('answers the text and usage blocking', async () => {
      fake.setBehaviour({ text: 'Hello there, friend.', usage: { inputTokens: 21, outputTokens: 5 } });
      const result = await provider.complete(request());
      expect(result).toEqual({ text: 'Hello there, friend.', usage: { inputTokens: 21, outputTokens: 5 } });
    });

    it('streams the text in deltas, then one done with the usage', async () => {
      fake.setBehaviour({ text: 'One two three four five six seven.', usage: { inputTokens: 9, outputTokens: 8 } });
      const events = await collect(provider.stream(request()));
      const deltas = events.filter((event) => event.type === 'delta');
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.map((event) => event.text).join('')).toBe('One two three four five six seven.');
      expect(events.at(-1)).toEqual({ type: 'done', usage: { inputTokens: 9, outputTokens: 8 } });
      expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
    });

    it('streams non-ASCII text intact, one character per event', async () => {
      fake.setBehaviour({ text: 'Grüße aus Köln — 東京 🚀 done', chunks: (text) => [...text].map((char) => char) });
      const events = await collect(provider.stream(request()));
      expect(
        events
          .filter((event) => event.type === 'delta')
          .map((event) => event.text)
          .join(''),
      ).toBe('Grüße aus Köln — 東京 🚀 done');
    });

    for (const mode of ['blocking', 'streaming'] as const) {
      const run = (overrides: Partial<ModelRequest> = {}) =>
        mode === 'blocking' ? provider.complete(request(overrides)) : collect(provider.stream(request(overrides)));

      describe(mode, () => {
        it('maps an upstream 500 to provider_error with the upstream status and message, never the key', async () => {
          fake.setBehaviour({ status: 500, errorMessage: `Upstream exploded while using ${options.apiKey}` });
          const error = await rejectionOf(run());
          expect(error).toBeInstanceOf(AppError);
          expect(error).toMatchObject({ code: 'provider_error', status: 502 });
          expect(error.message).toContain('HTTP 500');
          expect(error.message).toContain('Upstream exploded');
          expect(error.message).not.toContain(options.apiKey);
        });

        it('maps an answer slower than timeoutMs to provider_timeout and aborts the upstream request', async () => {
          fake.setBehaviour({ delayMs: 2_000 });
          const started = Date.now();
          const error = await rejectionOf(run({ timeoutMs: 150 }));
          expect(error).toMatchObject({ code: 'provider_timeout', status: 504 });
          expect(Date.now() - started).toBeLessThan(1_500);
          await fake.lastRequest().closed;
          expect(fake.lastRequest().aborted).toBe(true);
        });

        it('maps a malformed body to provider_error', async () => {
          fake.setBehaviour({ malformed: true });
          const error = await rejectionOf(run());
          expect(error).toMatchObject({ code: 'provider_error' });
          expect(error.message).toMatch(/unexpected format/);
        });

        it('maps a network failure to provider_error', async () => {
          const closed = await options.startFake();
          const unreachable = closed.baseUrl;
          await closed.close();
          provider = options.createProvider(unreachable);
          const error = await rejectionOf(run());
          expect(error).toMatchObject({ code: 'provider_error' });
          expect(error.message).toMatch(/Could not reach/);
          expect(error.message).toMatch(/ECONNREFUSED/);
        });

        it('throws an AbortError and aborts the upstream request when the caller aborts while waiting', async () => {
          fake.setBehaviour({ delayMs: 5_000 });
          const controller = new AbortController();
          const before = fake.requests.length;
          const pending = rejectionOf(run({ signal: controller.signal }));
          await waitFor(() => fake.requests.length > before);
          controller.abort();
          const error = await pending;
          expect(error.name).toBe('AbortError');
          await fake.lastRequest().closed;
          expect(fake.lastRequest().aborted).toBe(true);
        });

        it('throws an AbortError without calling upstream when the signal is already aborted', async () => {
          const before = fake.requests.length;
          const error = await rejectionOf(run({ signal: AbortSignal.abort() }));
          expect(error.name).toBe('AbortError');
          expect(fake.requests.length).toBe(before);
        });
      });
    }

    describe('streaming failures', () => {
      it('maps a stream cut mid-way to provider_error', async () => {
        fake.setBehaviour({ text: 'One two three four five six.', cutStreamAfterChunks: 1 });
        const events: ModelStreamEvent[] = [];
        const error = await rejectionOf(
          (async () => {
            for await (const event of provider.stream(request())) events.push(event);
          })(),
        );
        expect(error).toMatchObject({ code: 'provider_error' });
        expect(events.some((event) => event.type === 'done')).toBe(false);
      });

      it('maps a stream that stalls past timeoutMs to provider_timeout', async () => {
        fake.setBehaviour({ text: 'One two three four five six.', hangAfterChunks: 1 });
        const error = await rejectionOf(collect(provider.stream(request({ timeoutMs: 200 }))));
        expect(error).toMatchObject({ code: 'provider_timeout' });
        await fake.lastRequest().closed;
        expect(fake.lastRequest().aborted).toBe(true);
      });

      it('aborts the upstream request when the caller aborts mid-stream', async () => {
        fake.setBehaviour({ text: 'One two three four five six.', hangAfterChunks: 1 });
        const controller = new AbortController();
        const iterator = provider.stream(request({ signal: controller.signal }))[Symbol.asyncIterator]();
        const first = await iterator.next();
        expect(first.value).toMatchObject({ type: 'delta' });
        controller.abort();
        const error = await rejectionOf(iterator.next());
        expect(error.name).toBe('AbortError');
        await fake.lastRequest().closed;
        expect(fake.lastRequest().aborted).toBe(true);
      });

      it('aborts the upstream request when the consumer stops reading early', async () => {
        fake.setBehaviour({ text: 'One two three four five six.', hangAfterChunks: 1 });
        for await (const event of provider.stream(request())) {
          expect(event.type).toBe('delta');
          break;
        }
        await fake.lastRequest().closed;
        expect(fake.lastRequest().aborted).toBe(true);
      });
    });
  });
}

export async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
