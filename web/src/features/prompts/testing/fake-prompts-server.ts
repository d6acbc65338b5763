// A fake of the prompt configuration endpoints on top of the fake /api/app/ server: configurations
// in memory per slug (created with the server's defaults), PATCH applies the body like the server,
// and test-config renders {{variables}} with the server's rules.
import type { Application, IoSchema, PromptConfig, PromptTestResult, PromptVersion } from '@tollbooth/contract';
import { detectVariables } from '@tollbooth/contract';
import { fakeAppsServer } from '@/testing/fake-apps-server';
import { jsonResponse } from '@/testing/test-utils';

export const DEFAULT_INPUT_SCHEMA: IoSchema = {
  type: 'object',
  properties: { query: { type: 'string', description: 'The text to send to the model' } },
  required: ['query'],
  additionalProperties: false,
};

export function makePromptConfig(overrides: Partial<PromptConfig> & { version?: Partial<PromptConfig['active_version']> } = {}): PromptConfig {
  const { version, ...rest } = overrides;
  const active = {
    version: 1,
    system_prompt: 'You are a helpful assistant.',
    prompt_template: '{{query}}',
    input_schema: DEFAULT_INPUT_SCHEMA,
    output_schema: null,
    changelog: 'Initial version',
    created_at: '2024-05-01T10:00:00.000Z',
    ...version,
  };
  return {
    model: 'gpt-4-turbo',
    key_source: 'platform',
    temperature: 0.7,
    max_tokens: 2048,
    top_p: 1,
    frequency_penalty: 0,
    presence_penalty: 0,
    system_prompt: active.system_prompt,
    active_version: active,
    ...rest,
  };
}

/**
 * The server's rendering: {{ word }} replaced by the test input, else the schema's default, else an
 * empty value; only stray braces are an error.
 */
export function renderLikeServer(template: string, inputs: Record<string, unknown>, schema?: IoSchema | null): PromptTestResult {
  const variables = detectVariables(template);
  const blank = (value: unknown) => value === undefined || value === null || value === '';
  const testValue = (name: string) => {
    if (!blank(inputs[name])) return inputs[name];
    const fallback = schema?.properties[name]?.default;
    return blank(fallback) ? '' : fallback;
  };
  const text = template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_whole, name: string) => {
    const value = testValue(name);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
  const stray = /\{\{|\}\}/.test(template.replace(/\{\{\s*(\w+)\s*\}\}/g, ''));
  return {
    success: !stray,
    message: stray ? 'Template has problems' : 'Template rendered successfully',
    error: stray ? 'Unbalanced braces' : null,
    rendered_template: text,
    detected_variables: variables,
  };
}

function testAnswer(body: Record<string, unknown>, savedSchema: IoSchema | null) {
  const schema = (body.input_schema as IoSchema | undefined) ?? savedSchema;
  const result = renderLikeServer(String(body.prompt_template ?? ''), (body.test_inputs ?? {}) as Record<string, unknown>, schema);
  if (body.run && result.success) {
    return jsonResponse({
      ...result,
      message: 'Template rendered and the model answered',
      answer: `Demo answer to: ${result.rendered_template}`,
      usage: { input_tokens: 12, output_tokens: 34 },
    });
  }
  return jsonResponse(result);
}

type Handler = (url: URL, init: RequestInit | undefined) => Response | undefined | Promise<Response | undefined>;
type AppsOverride = NonNullable<Parameters<typeof fakeAppsServer>[0]>['override'];

interface FakePromptsServerOptions {
  apps?: Application[];
  configs?: Record<string, PromptConfig>;
  /** Runs first; answer a Response to override the fake for one call. */
  override?: Handler;
  /** The typical model cost (micro-dollars) the cost estimate answers per app slug; none: null. */
  typicalMicros?: Record<string, number>;
}

/**
 * The cost estimate of POST /api/prompt/cost-estimate/ at $10 / $30 per million tokens: the
 * template's and system prompt's characters as the input bound (plus 16), max_tokens out.
 */
function costEstimateAnswer(body: Record<string, unknown>, typicalMicros: Record<string, number>) {
  const input = String(body.system_prompt ?? '').length + String(body.prompt_template ?? '').length + 16;
  const output = Number(body.max_tokens);
  const typical = typeof body.app_slug === 'string' ? (typicalMicros[body.app_slug] ?? null) : null;
  return jsonResponse({
    model: body.model,
    prices: { input_per_million_usd: 10, output_per_million_usd: 30 },
    worst_case_input_tokens: input,
    worst_case_output_tokens: output,
    worst_case_micros: input * 10 + output * 30,
    typical_micros: typical,
    typical_calls: typical === null ? 0 : 20,
    unbounded_variables: [],
  });
}

export function fakePromptsServer({ apps = [], configs = {}, override, typicalMicros = {} }: FakePromptsServerOptions = {}) {
  const state = { configs: { ...configs }, versions: {} as Record<string, PromptVersion[]> };

  const promptHandler: Handler = async (url, init) => {
    const overridden = await override?.(url, init);
    if (overridden) return overridden;
    if (url.pathname === '/api/prompt/cost-estimate/' && init?.method === 'POST') {
      return costEstimateAnswer(JSON.parse(String(init.body)) as Record<string, unknown>, typicalMicros);
    }
    if (url.pathname === '/api/prompt/test-config/' && init?.method === 'POST') {
      return testAnswer(JSON.parse(String(init.body)) as Record<string, unknown>, null);
    }
    const match = /^\/api\/app\/([^/]+)\/prompt\/(.*)$/.exec(url.pathname);
    if (!match) return undefined;
    const slug = decodeURIComponent(match[1] as string);
    const rest = match[2];
    const method = init?.method ?? 'GET';
    if (!server.state.apps.some((app) => app.slug === slug && app.type === 'prompt')) {
      return jsonResponse({ code: 'not_found', message: 'Prompt not found', status: 404 }, 404);
    }
    state.configs[slug] ??= makePromptConfig();
    const config = state.configs[slug];
    state.versions[slug] ??= [config.active_version];
    const versions = state.versions[slug];
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};

    if (rest === '' && method === 'GET') return jsonResponse(config);
    if (rest === '' && method === 'PATCH') {
      const { system_prompt, prompt_template, input_schema, output_schema, changelog, ...settings } = body;
      const active = config.active_version;
      const next = {
        ...active,
        system_prompt: (system_prompt as string | undefined) ?? active.system_prompt,
        prompt_template: (prompt_template as string | undefined) ?? active.prompt_template,
        input_schema: (input_schema as IoSchema | undefined) ?? active.input_schema,
        output_schema: output_schema === undefined ? active.output_schema : (output_schema as IoSchema | null),
        changelog: (changelog as string | undefined) ?? '',
        version: Math.max(...versions.map((version) => version.version)) + 1,
        created_at: '2024-06-01T10:00:00.000Z',
      };
      versions.push(next);
      state.configs[slug] = { ...config, ...(settings as Partial<PromptConfig>), system_prompt: next.system_prompt, active_version: next };
      return jsonResponse(state.configs[slug]);
    }
    if (rest === 'test-config/' && method === 'POST') return testAnswer(body, config.active_version.input_schema);
    if (rest === 'versions/' && method === 'GET') {
      return jsonResponse({ active_version: config.active_version.version, versions: [...versions].sort((a, b) => b.version - a.version) });
    }
    const activate = /^versions\/(\d+)\/activate\/$/.exec(rest ?? '');
    if (activate && method === 'POST') {
      const target = versions.find((version) => version.version === Number(activate[1]));
      if (!target) return jsonResponse({ code: 'not_found', message: 'Version not found', status: 404 }, 404);
      state.configs[slug] = { ...config, system_prompt: target.system_prompt, active_version: target };
      return jsonResponse(state.configs[slug]);
    }
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  };

  // The apps fake awaits its override and falls through when the answer is undefined.
  const server = fakeAppsServer({ apps, override: promptHandler as AppsOverride });
  // The forms' cost estimates are reads made as settings change (debounced): the changes a test
  // checks are listed without them, and costEstimates() lists them.
  const COST_ESTIMATE = 'POST /api/prompt/cost-estimate/';
  return {
    ...server,
    calls: () => server.calls().filter((call) => call !== COST_ESTIMATE),
    costEstimates: () => server.calls().filter((call) => call === COST_ESTIMATE),
    promptState: state,
  };
}
