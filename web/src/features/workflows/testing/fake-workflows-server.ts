// A fake of the workflow endpoints on top of the fake /api/app/ server: the provider registry,
// configurations per slug (PATCH applies the body and adds a version), test-config answering
// like the server, and versions with rollback.
import type { Application, WorkflowConfig, WorkflowProviderInfo, WorkflowTestResult, WorkflowVersion } from '@tollbooth/contract';
import { fakeAppsServer } from '@/testing/fake-apps-server';
import { jsonResponse } from '@/testing/test-utils';

export const DIFY_PROVIDER: WorkflowProviderInfo = {
  id: 'dify',
  name: 'Dify',
  description: 'Any Dify app through its Service API',
  slug: 'dify',
  config_schema: {
    type: 'object',
    properties: {
      base_url: { title: 'API Base URL', description: 'Dify Cloud or your own', type: 'string', default: 'https://api.dify.ai/v1' },
      api_key: { title: 'API Key', description: "The app's key", type: 'string', secret: true },
      app_id: { title: 'App ID', description: 'The Dify app id', type: 'string' },
    },
    required: ['base_url', 'api_key', 'app_id'],
  },
};

export const APP_INFO = {
  name: 'Support Chatflow',
  description: 'Answers support questions',
  mode: 'advanced-chat',
  user_input_form: [{ 'text-input': { label: 'Customer name', variable: 'customer', required: true, max_length: 40 } }],
};

export function makeWorkflowConfig(overrides: Partial<WorkflowConfig> = {}): WorkflowConfig {
  return {
    provider: DIFY_PROVIDER,
    provider_config: { base_url: 'https://api.dify.ai/v1', api_key: '••••••••WXYZ', app_id: 'dify-app-1' },
    timeout_seconds: 300,
    max_iterations: 10,
    enable_logging: true,
    app_info: null,
    active_version: 1,
    updated_at: '2024-05-01T10:00:00.000Z',
    ...overrides,
  };
}

type Handler = (url: URL, init: RequestInit | undefined) => Response | undefined | Promise<Response | undefined>;
type AppsOverride = NonNullable<Parameters<typeof fakeAppsServer>[0]>['override'];

interface FakeWorkflowsServerOptions {
  apps?: Application[];
  configs?: Record<string, WorkflowConfig>;
  providers?: WorkflowProviderInfo[];
  testResult?: WorkflowTestResult;
  override?: Handler;
}

export function fakeWorkflowsServer({ apps = [], configs = {}, providers = [DIFY_PROVIDER], testResult, override }: FakeWorkflowsServerOptions = {}) {
  const state = { configs: { ...configs }, versions: {} as Record<string, WorkflowVersion[]> };
  const snapshot = (config: WorkflowConfig, changelog: string): WorkflowVersion => ({
    version: config.active_version,
    provider: config.provider?.id ?? 'dify',
    provider_config: { ...config.provider_config },
    timeout_seconds: config.timeout_seconds,
    max_iterations: config.max_iterations,
    enable_logging: config.enable_logging,
    app_info: config.app_info,
    changelog,
    created_at: '2024-05-01T10:00:00.000Z',
  });

  const handler: Handler = async (url, init) => {
    const overridden = await override?.(url, init);
    if (overridden) return overridden;
    const method = init?.method ?? 'GET';
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};
    if (url.pathname === '/api/workflow-providers/') return jsonResponse(providers);
    const configMatch = /^\/api\/app\/([^/]+)\/workflow\/(.*)$/.exec(url.pathname);
    const versionsMatch = /^\/api\/workflows\/([^/]+)\/versions\/$/.exec(url.pathname);
    const slug = decodeURIComponent((configMatch?.[1] ?? versionsMatch?.[1] ?? '') as string);
    if (!configMatch && !versionsMatch) return undefined;
    if (!server.state.apps.some((app) => app.slug === slug && app.type === 'workflow')) {
      return jsonResponse({ code: 'not_found', message: 'Workflow not found', status: 404 }, 404);
    }
    state.configs[slug] ??= makeWorkflowConfig();
    state.versions[slug] ??= [snapshot(state.configs[slug], 'Initial version')];
    const config = state.configs[slug];
    if (configMatch?.[2] === '' && method === 'GET') return jsonResponse(config);
    if (configMatch?.[2] === '' && method === 'PATCH') {
      const { changelog, provider_config, provider: _provider, ...settings } = body as Record<string, unknown>;
      const masked = Object.fromEntries(
        Object.entries((provider_config ?? {}) as Record<string, string>).map(([name, value]) => [
          name,
          name === 'api_key' && !value.startsWith('••') ? `••••••••${value.slice(-4)}` : value,
        ]),
      );
      state.configs[slug] = {
        ...config,
        ...(settings as Partial<WorkflowConfig>),
        provider_config: { ...config.provider_config, ...masked },
        app_info: APP_INFO,
        active_version: config.active_version + 1,
      };
      state.versions[slug]!.unshift(snapshot(state.configs[slug], String(changelog ?? '')));
      return jsonResponse(state.configs[slug]);
    }
    if (configMatch?.[2] === 'test-config/' && method === 'POST') {
      return jsonResponse(
        testResult ?? { success: true, message: 'Connected to Dify app "Support Chatflow" (advanced-chat)', error: null, app_info: APP_INFO },
      );
    }
    if (versionsMatch && method === 'GET') return jsonResponse({ active_version: config.active_version, versions: state.versions[slug] });
    if (versionsMatch && method === 'POST') {
      const target = state.versions[slug]!.find((version) => version.version === body.rollback_to);
      if (!target) return jsonResponse({ code: 'invalid_param', message: 'rollback_to: no such version', status: 400, params: 'rollback_to' }, 400);
      state.configs[slug] = {
        ...config,
        timeout_seconds: target.timeout_seconds,
        max_iterations: target.max_iterations,
        enable_logging: target.enable_logging,
        active_version: config.active_version + 1,
      };
      state.versions[slug]!.unshift(snapshot(state.configs[slug], `Rolled back to version ${target.version}`));
      return jsonResponse({ active_version: state.configs[slug].active_version, versions: state.versions[slug] }, 201);
    }
    return jsonResponse({ code: 'not_found', message: 'Not found', status: 404 }, 404);
  };

  const server = fakeAppsServer({ apps, override: handler as AppsOverride });
  return { ...server, workflowState: state };
}
