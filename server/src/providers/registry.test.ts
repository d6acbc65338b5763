import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../platform/config.ts';
import { AppError } from '../platform/errors.ts';
import { startAnthropicFake } from '../test-support/fakes/anthropic-fake.ts';
import { startGeminiFake } from '../test-support/fakes/gemini-fake.ts';
import type { FakeProviderServer } from '../test-support/fakes/http-fake.ts';
import { startOpenAIFake } from '../test-support/fakes/openai-fake.ts';
import { baseRequest, collect } from '../test-support/fakes/provider-contract.ts';
import { createModelRouter, DEFAULT_MODEL_TABLE, KNOWN_MODELS, parseModelTable } from './registry.ts';

const noKeys: Config['models'] = {
  openaiApiKey: null,
  openaiBaseUrl: 'https://api.openai.com/v1',
  anthropicApiKey: null,
  geminiApiKey: null,
  demoModel: true,
};
const allKeys: Config['models'] = { ...noKeys, openaiApiKey: 'sk-o', anthropicApiKey: 'sk-a', geminiApiKey: 'g-key' };

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('the model table', () => {
  it('covers every model name of the spec', () => {
    expect([...KNOWN_MODELS].sort()).toEqual(
      ['gpt-4-turbo', 'gpt-4', 'claude-3-opus', 'claude-3-sonnet', 'claude-3-haiku', 'gemini-pro', 'gpt4', 'claude3', 'gemini', 'mixtral'].sort(),
    );
    expect(Object.keys(DEFAULT_MODEL_TABLE).sort()).toEqual([...KNOWN_MODELS].sort());
  });

  it('maps each name to the expected provider', () => {
    const kinds = Object.fromEntries(Object.entries(DEFAULT_MODEL_TABLE).map(([name, entry]) => [name, entry.provider]));
    expect(kinds).toEqual({
      'gpt-4-turbo': 'openai',
      'gpt-4': 'openai',
      'claude-3-opus': 'anthropic',
      'claude-3-sonnet': 'anthropic',
      'claude-3-haiku': 'anthropic',
      'gemini-pro': 'gemini',
      gpt4: 'openai',
      claude3: 'anthropic',
      gemini: 'gemini',
      mixtral: 'openai',
    });
    expect(DEFAULT_MODEL_TABLE.gpt4.upstreamModel).toBe('gpt-4');
  });
});

describe('parseModelTable', () => {
  it('merges entries over the defaults', () => {
    const table = parseModelTable(
      JSON.stringify({
        mixtral: { provider: 'openai', upstreamModel: 'mistralai/mixtral-8x7b-instruct' },
        'llama-3': { provider: 'openai', upstreamModel: 'llama3' },
      }),
    );
    expect(table.mixtral).toEqual({ provider: 'openai', upstreamModel: 'mistralai/mixtral-8x7b-instruct' });
    expect(table['llama-3']).toEqual({ provider: 'openai', upstreamModel: 'llama3' });
    expect(table['gpt-4']).toEqual(DEFAULT_MODEL_TABLE['gpt-4']);
  });

  it('lists every problem', () => {
    expect(() => parseModelTable('{not json')).toThrow(/not valid JSON/);
    expect(() => parseModelTable('[]')).toThrow(/must be a JSON object/);
    const error = thrown(() =>
      parseModelTable(
        JSON.stringify({
          a: { provider: 'azure', upstreamModel: 'x' },
          b: { provider: 'openai' },
          c: 'gpt-4',
          d: { provider: 'openai', upstreamModel: 'x', baseUrl: 'y' },
        }),
      ),
    ) as Error;
    expect(error.message).toContain('"a": provider must be one of openai, anthropic, gemini');
    expect(error.message).toContain('"b": upstreamModel must be a non-empty string');
    expect(error.message).toContain('"c" must be an object');
    expect(error.message).toContain('"d" has unknown keys: baseUrl');
  });

  it('treats "__proto__" as a plain name', () => {
    const table = parseModelTable('{"__proto__": {"provider": "openai", "upstreamModel": "evil", "prices": {"input": 1, "output": 2}}}');
    expect(Object.getPrototypeOf(table)).toBeNull();
    expect(({} as Record<string, unknown>).upstreamModel).toBeUndefined();
    expect(createModelRouter(allKeys, { table }).resolve('__proto__').upstreamModel).toBe('evil');
  });
});

describe('createModelRouter', () => {
  it('resolves every spec model name to its provider when keys are configured', () => {
    const router = createModelRouter(allKeys);
    for (const name of KNOWN_MODELS) {
      const resolved = router.resolve(name);
      expect(resolved.demo).toBe(false);
      expect(resolved.provider.name).toBe(DEFAULT_MODEL_TABLE[name].provider);
      expect(resolved.upstreamModel).toBe(DEFAULT_MODEL_TABLE[name].upstreamModel);
    }
  });

  it('reuses one provider per kind', () => {
    const router = createModelRouter(allKeys);
    expect(router.resolve('gpt4').provider).toBe(router.resolve('gpt-4-turbo').provider);
  });

  it('falls back to the demo model for every name when no provider is configured and DEMO_MODEL is on', async () => {
    const router = createModelRouter(noKeys);
    for (const name of KNOWN_MODELS) {
      const resolved = router.resolve(name);
      expect(resolved).toMatchObject({ demo: true, upstreamModel: name });
      expect(resolved.provider.name).toBe('demo');
    }
    const { text } = await router.resolve('claude3').provider.complete(baseRequest({ model: 'claude3' }));
    expect(text).toContain('no model provider is configured for "claude3"');
  });

  it('falls back only for the providers without a key', () => {
    const router = createModelRouter({ ...noKeys, anthropicApiKey: 'sk-a' });
    expect(router.resolve('claude-3-opus').demo).toBe(false);
    expect(router.resolve('gpt-4').demo).toBe(true);
    expect(router.resolve('gemini').demo).toBe(true);
  });

  it('refuses a model whose provider is not configured when DEMO_MODEL is off', () => {
    const router = createModelRouter({ ...noKeys, demoModel: false });
    const error = thrown(() => router.resolve('gpt-4'));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'provider_error', message: 'Model provider for gpt-4 is not configured' });
  });

  it('counts an OpenAI-compatible base URL of its own as configured, key or not', () => {
    const router = createModelRouter({ ...noKeys, demoModel: false, openaiBaseUrl: 'http://localhost:11434/v1' });
    expect(router.resolve('mixtral')).toMatchObject({ demo: false, upstreamModel: 'mixtral-8x7b' });
  });

  it('refuses an unknown model name as invalid_param on model', () => {
    const error = thrown(() => createModelRouter(allKeys).resolve('gpt-5-ultra'));
    expect(error).toMatchObject({ code: 'invalid_param', status: 400, params: 'model' });
    expect((error as Error).message).toContain('unknown model "gpt-5-ultra"');
    expect(thrown(() => createModelRouter(allKeys).resolve('toString'))).toMatchObject({ code: 'invalid_param' });
  });

  describe('end to end against the fakes', () => {
    let openai: FakeProviderServer;
    let anthropic: FakeProviderServer;
    let gemini: FakeProviderServer;
    beforeAll(async () => {
      [openai, anthropic, gemini] = await Promise.all([
        startOpenAIFake({ apiKey: 'sk-o' }),
        startAnthropicFake({ apiKey: 'sk-a' }),
        startGeminiFake({ apiKey: 'g-key' }),
      ]);
    });
    afterAll(() => Promise.all([openai.close(), anthropic.close(), gemini.close()]));

    it('routes each model name to its provider with the upstream model id', async () => {
      const router = createModelRouter({ ...allKeys, openaiBaseUrl: openai.baseUrl }, { anthropicBaseUrl: anthropic.baseUrl, geminiBaseUrl: gemini.baseUrl });
      openai.setBehaviour({ text: 'from openai' });
      anthropic.setBehaviour({ text: 'from anthropic' });
      gemini.setBehaviour({ text: 'from gemini' });
      const call = async (name: string) => {
        const { provider, upstreamModel } = router.resolve(name);
        return (await provider.complete(baseRequest({ model: upstreamModel }))).text;
      };
      expect(await call('gpt4')).toBe('from openai');
      expect(openai.lastRequest().body).toMatchObject({ model: 'gpt-4' });
      expect(await call('claude3')).toBe('from anthropic');
      expect(anthropic.lastRequest().body).toMatchObject({ model: DEFAULT_MODEL_TABLE.claude3.upstreamModel });
      expect(await call('gemini')).toBe('from gemini');
      expect(gemini.lastRequest().path).toBe(`/v1beta/models/${DEFAULT_MODEL_TABLE.gemini.upstreamModel}:generateContent`);
      const { provider, upstreamModel } = router.resolve('mixtral');
      const events = await collect(provider.stream(baseRequest({ model: upstreamModel })));
      expect(events.at(-1)).toMatchObject({ type: 'done' });
      expect(openai.lastRequest().body).toMatchObject({ model: 'mixtral-8x7b', stream: true });
    });
  });
});

describe('resolveWith: a creator’s own credentials (bring your own key)', () => {
  let platformAnthropic: FakeProviderServer;
  let ownAnthropic: FakeProviderServer;
  let ownGemini: FakeProviderServer;
  let ownOpenAI: FakeProviderServer;
  beforeAll(async () => {
    [platformAnthropic, ownAnthropic, ownGemini, ownOpenAI] = await Promise.all([
      startAnthropicFake({ apiKey: 'sk-a' }),
      startAnthropicFake({ apiKey: 'sk-ant-own' }),
      startGeminiFake({ apiKey: 'g-own' }),
      startOpenAIFake({ apiKey: 'sk-own' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([platformAnthropic.close(), ownAnthropic.close(), ownGemini.close(), ownOpenAI.close()]);
  });

  it('calls Anthropic and Gemini with the creator’s key, marked ownKey, never the platform’s key or the demo', async () => {
    const router = createModelRouter(allKeys, { anthropicBaseUrl: ownAnthropic.baseUrl, geminiBaseUrl: ownGemini.baseUrl });
    const credentials = {
      anthropic: { kind: 'anthropic' as const, baseUrl: null, apiKey: 'sk-ant-own' },
      gemini: { kind: 'gemini' as const, baseUrl: null, apiKey: 'g-own' },
    };
    const claude = router.resolveWith('claude-3-haiku', credentials);
    expect(claude).toMatchObject({ ownKey: true, demo: false, providerKind: 'anthropic', upstreamModel: DEFAULT_MODEL_TABLE['claude-3-haiku']!.upstreamModel });
    await claude.provider.complete(baseRequest({ model: claude.upstreamModel }));
    expect(ownAnthropic.lastRequest().headers['x-api-key']).toBe('sk-ant-own');
    const gemini = router.resolveWith('gemini-pro', credentials);
    expect(gemini.ownKey).toBe(true);
    await collect(gemini.provider.stream(baseRequest({ model: gemini.upstreamModel })));
    expect(ownGemini.lastRequest().headers['x-goog-api-key']).toBe('g-own');

    // No own key for the model's provider: refused, not the platform's key, not the demo.
    const missing = thrown(() => router.resolveWith('gpt-4-turbo', credentials)) as AppError;
    expect(missing).toMatchObject({ code: 'app_unavailable', errorType: 'own_key_missing' });
    expect(missing.message).toContain('OpenAI-compatible');
    const demoRouter = createModelRouter(noKeys);
    expect((thrown(() => demoRouter.resolveWith('claude-3-haiku', {})) as AppError).errorType).toBe('own_key_missing');
    expect((thrown(() => router.resolveWith('nope', credentials)) as AppError).code).toBe('invalid_param');
  });

  it('keeps one provider per credential: the same credential reuses it, a changed key gets a new one', () => {
    const router = createModelRouter(noKeys, { allowPrivateUrls: true });
    const credential = { kind: 'openai' as const, baseUrl: ownOpenAI.baseUrl, apiKey: 'sk-own' };
    const first = router.resolveWith('gpt-4', { openai: credential }).provider;
    expect(router.resolveWith('gpt4', { openai: { ...credential } }).provider).toBe(first);
    expect(router.resolveWith('gpt-4', { openai: { ...credential, apiKey: 'sk-other' } }).provider).not.toBe(first);
    router.forgetCredential(credential);
    expect(router.resolveWith('gpt-4', { openai: credential }).provider).not.toBe(first);
  });

  it('refuses a creator’s base URL on a loopback address at connect time unless private URLs are allowed', async () => {
    const strict = createModelRouter(noKeys);
    const before = ownOpenAI.requests.length;
    const port = new URL(ownOpenAI.baseUrl).port;
    for (const baseUrl of [ownOpenAI.baseUrl, `http://localhost:${port}/v1`]) {
      const resolved = strict.resolveWith('gpt-4', { openai: { kind: 'openai', baseUrl, apiKey: 'sk-own' } });
      const error = await resolved.provider.complete(baseRequest({ model: 'gpt-4' })).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error, baseUrl).toMatchObject({ code: 'provider_error' });
      expect((error as Error).message).toMatch(/private or loopback/);
    }
    expect(ownOpenAI.requests.length).toBe(before);
    const open = createModelRouter(noKeys, { allowPrivateUrls: true });
    const resolved = open.resolveWith('gpt-4', { openai: { kind: 'openai', baseUrl: ownOpenAI.baseUrl, apiKey: 'sk-own' } });
    expect((await resolved.provider.complete(baseRequest({ model: 'gpt-4' }))).text).toBeTruthy();
  });
});
