import { describe, expect, it } from 'vitest';
import type { ApiMethod } from '../test-support/app.ts';
import { difyTestContextForFile, SUPPORT_BOT_APP } from '../test-support/dify-app.ts';

const KEY = 'app-fakeDifyKey1234WXYZ';
const ctx = await difyTestContextForFile({}, { apiKey: KEY, app: SUPPORT_BOT_APP });
const { dify } = ctx;
const ownerToken = await ctx.tokenFor('workflow-owner', { name: 'Flow Creator' });

const api = (method: ApiMethod, url: string, token = ownerToken, payload?: object) => ctx.api(method, url, token, payload);

let counter = 0;
async function workflowApp(providerConfig: object = {}) {
  const created = await api('POST', '/api/app/', ownerToken, {
    name: `Flow ${++counter}`,
    type: 'workflow',
    price_cents: 25,
    provider_config: { app_id: 'dify-app-1', api_key: KEY, base_url: dify.baseUrl, ...providerConfig },
  });
  expect(created.statusCode).toBe(201);
  return created.json() as { id: string; slug: string };
}

describe('GET /api/workflow-providers/', () => {
  it('lists Dify with its config schema (base_url default, secret api_key, app_id)', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/workflow-providers/' });
    expect(response.statusCode).toBe(200);
    const [dify] = response.json();
    expect(dify).toMatchObject({ id: 'dify', slug: 'dify', name: 'Dify' });
    expect(dify.config_schema.required).toEqual(['base_url', 'api_key', 'app_id']);
    expect(dify.config_schema.properties.base_url).toMatchObject({ type: 'string', default: 'https://api.dify.ai/v1' });
    expect(dify.config_schema.properties.api_key).toMatchObject({ title: 'API Key', secret: true });
    expect(dify.config_schema.properties.app_id.title).toBe('App ID');
  });
});

describe('the workflow configuration', () => {
  it('starts with the defaults, the masked key and version 1', async () => {
    const { slug } = await workflowApp();
    const response = await api('GET', `/api/app/${slug}/workflow/`);
    expect(response.statusCode).toBe(200);
    const config = response.json();
    expect(config).toMatchObject({ timeout_seconds: 300, max_iterations: 10, enable_logging: true, active_version: 1, app_info: null });
    expect(config.provider.id).toBe('dify');
    expect(config.provider_config).toEqual({ base_url: dify.baseUrl, api_key: '••••••••WXYZ', app_id: 'dify-app-1' });
    expect(response.body).not.toContain(KEY);
  });

  it('saves settings as a new version, keeps the key when the mask comes back, and caches the app info', async () => {
    const { slug } = await workflowApp();
    const saved = await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, {
      provider_config: { base_url: dify.baseUrl, api_key: '••••••••WXYZ', app_id: 'dify-app-2' },
      timeout_seconds: 30,
      max_iterations: 3,
      enable_logging: false,
      changelog: 'Updated via UI',
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ timeout_seconds: 30, max_iterations: 3, enable_logging: false, active_version: 2 });
    expect(saved.json().app_info).toEqual({
      name: 'Support Bot',
      description: 'Answers support questions',
      mode: 'advanced-chat',
      user_input_form: [{ 'text-input': { label: 'Topic', variable: 'topic', required: true, max_length: 48 } }],
    });
    // The stored key still works: the save checked it against the fake with the real key.
    expect(dify.lastRequest().headers.authorization).toBe(`Bearer ${KEY}`);
    const { rows } = await ctx.database.db.query<{ provider_secret_sealed: string }>('SELECT provider_secret_sealed FROM apps WHERE slug = $1', [slug]);
    expect(rows[0]!.provider_secret_sealed).not.toContain(KEY);
  });

  it('refuses bad settings with 400 naming the field', async () => {
    const { slug } = await workflowApp();
    const cases: [object, string][] = [
      [{ timeout_seconds: 0 }, 'timeout_seconds'],
      [{ timeout_seconds: 601 }, 'timeout_seconds'],
      [{ max_iterations: 0 }, 'max_iterations'],
      [{ provider: 'nope' }, 'provider'],
      [{ provider_config: { app_id: '' } }, 'provider_config.app_id'],
      [{ provider_config: { base_url: 'ftp://x' } }, 'provider_config.base_url'],
      [{ provider_config: { colour: 'red' } }, 'provider_config.colour'],
    ];
    for (const [body, field] of cases) {
      const response = await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().params ?? response.json().message).toContain(field);
    }
  });

  it('is the owner’s only, and prompt apps have none: Workflow not found', async () => {
    const { slug } = await workflowApp();
    const stranger = await ctx.tokenFor('workflow-stranger');
    const response = await api('GET', `/api/app/${slug}/workflow/`, stranger);
    expect(response.statusCode).toBe(404);
    expect(response.json().message).toBe('Workflow not found');
    const prompt = await api('POST', '/api/app/', ownerToken, { name: 'Not a flow', type: 'prompt' });
    expect((await api('GET', `/api/app/${prompt.json().slug}/workflow/`)).statusCode).toBe(404);
  });
});

describe('POST /api/app/{slug}/workflow/test-config/', () => {
  it('checks the key and app and answers the app info', async () => {
    const { slug } = await workflowApp();
    const response = await api('POST', `/api/app/${slug}/workflow/test-config/`, ownerToken, { provider_config: { api_key: '••••••••WXYZ' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, error: null, app_info: { name: 'Support Bot', mode: 'advanced-chat' } });
    expect(dify.requests.slice(-2).map((request) => request.path)).toEqual(['/v1/info', '/v1/parameters']);
    // Tested settings that are the saved ones refresh the cached form.
    expect((await api('GET', `/api/app/${slug}/workflow/`)).json().app_info.name).toBe('Support Bot');
  });

  it('says clearly what is wrong: a bad key, an unreachable URL, a provider error — never a 500', async () => {
    const { slug } = await workflowApp();
    const badKey = await api('POST', `/api/app/${slug}/workflow/test-config/`, ownerToken, { provider_config: { api_key: 'app-wrong' } });
    expect(badKey.statusCode).toBe(200);
    expect(badKey.json()).toMatchObject({ success: false, app_info: null });
    expect(badKey.json().error).toMatch(/refused the app's API key/);
    expect(badKey.body).not.toContain('app-wrong');

    const unreachable = await api('POST', `/api/app/${slug}/workflow/test-config/`, ownerToken, { provider_config: { base_url: 'http://127.0.0.1:1/v1' } });
    expect(unreachable.json()).toMatchObject({ success: false });
    expect(unreachable.json().error).toMatch(/Could not reach Dify/);

    dify.setBehaviour({ status: 500 });
    const broken = await api('POST', `/api/app/${slug}/workflow/test-config/`, ownerToken, { provider_config: {} });
    expect(broken.json().success).toBe(false);
    expect(broken.json().error).toMatch(/Dify answered 500/);
  });

  it('works before the app exists (the create form)', async () => {
    const response = await api('POST', '/api/workflow-providers/test-config/', ownerToken, {
      provider: 'dify',
      provider_config: { base_url: dify.baseUrl, api_key: KEY, app_id: 'x' },
    });
    expect(response.json()).toMatchObject({ success: true, app_info: { mode: 'advanced-chat' } });
  });
});

describe('versions', () => {
  it('lists numbered snapshots and rolls back to one as a new version, secret and all', async () => {
    const { id, slug } = await workflowApp();
    await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, { timeout_seconds: 20, changelog: 'Faster' });
    await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, { provider_config: { api_key: 'app-newKey9876ABCD' }, timeout_seconds: 40 });
    const list = await api('GET', `/api/workflows/${id}/versions/`);
    expect(list.statusCode).toBe(200);
    expect(list.json().active_version).toBe(3);
    expect(list.json().versions.map((v: { version: number; changelog: string }) => [v.version, v.changelog])).toEqual([
      [3, 'Updated configuration'],
      [2, 'Faster'],
      [1, 'Initial version'],
    ]);
    expect(list.body).not.toContain(KEY);
    expect(list.body).not.toContain('app-newKey9876ABCD');

    const rolledBack = await api('POST', `/api/workflows/${id}/versions/`, ownerToken, { rollback_to: 2 });
    expect(rolledBack.statusCode).toBe(201);
    expect(rolledBack.json().active_version).toBe(4);
    expect(rolledBack.json().versions[0]).toMatchObject({ version: 4, changelog: 'Rolled back to version 2', timeout_seconds: 20 });
    const config = (await api('GET', `/api/app/${slug}/workflow/`)).json();
    expect(config).toMatchObject({ timeout_seconds: 20, active_version: 4 });
    expect(config.provider_config.api_key).toBe('••••••••WXYZ');
    // The slug works as the id too, and an unknown version is a 400 naming the field.
    const missing = await api('POST', `/api/workflows/${slug}/versions/`, ownerToken, { rollback_to: 99 });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().params).toBe('rollback_to');
  });

  it('a duplicated app keeps the history', async () => {
    const { slug } = await workflowApp();
    await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, { max_iterations: 4 });
    const copy = await api('POST', `/api/app/${slug}/duplicate/`);
    const versions = (await api('GET', `/api/workflows/${copy.json().slug}/versions/`)).json();
    expect(versions.active_version).toBe(2);
    expect(versions.versions).toHaveLength(2);
  });
});

describe('versions follow every change of the settings, and only changes', () => {
  const versionsOf = async (slug: string) =>
    (await api('GET', `/api/workflows/${slug}/versions/`)).json() as {
      active_version: number;
      versions: { version: number; changelog: string; timeout_seconds: number; provider_config: Record<string, string> }[];
    };

  it('a save that changes nothing (the mask sent back, the same values) is not a new version', async () => {
    const { slug } = await workflowApp();
    const first = await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, { timeout_seconds: 45, changelog: 'Slower' });
    expect(first.json().active_version).toBe(2);
    const current = first.json();
    const same = await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, {
      provider: 'dify',
      provider_config: current.provider_config,
      timeout_seconds: 45,
      max_iterations: current.max_iterations,
      enable_logging: current.enable_logging,
      changelog: 'Updated via UI',
    });
    expect(same.statusCode).toBe(200);
    expect(same.json().active_version).toBe(2);
    // The key typed again in clear is the same key: still no new version.
    const retyped = await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, { provider_config: { api_key: KEY } });
    expect(retyped.json().active_version).toBe(2);
    expect((await versionsOf(slug)).versions.map((v) => v.version)).toEqual([2, 1]);
    // Any one setting changed is a version.
    for (const [body, expected] of [
      [{ max_iterations: 7 }, 3],
      [{ enable_logging: false }, 4],
      [{ provider_config: { app_id: 'dify-app-9' } }, 5],
      [{ provider_config: { api_key: 'app-anotherKey5555' } }, 6],
    ] as const) {
      const saved = await api('PATCH', `/api/app/${slug}/workflow/`, ownerToken, body);
      expect(saved.json().active_version, JSON.stringify(body)).toBe(expected);
    }
  });

  it('provider settings changed through PATCH /api/app/{slug}/ are a numbered version too; other app changes are not', async () => {
    const { slug } = await workflowApp();
    const renamed = await api('PATCH', `/api/app/${slug}/`, ownerToken, { name: 'Renamed flow', description: 'd' });
    expect(renamed.statusCode).toBe(200);
    expect((await versionsOf(slug)).active_version).toBe(1);
    const masked = await api('PATCH', `/api/app/${slug}/`, ownerToken, { provider_config: { api_key: '••••••••WXYZ', app_id: 'dify-app-1' } });
    expect(masked.statusCode).toBe(200);
    expect((await versionsOf(slug)).active_version).toBe(1);
    const changed = await api('PATCH', `/api/app/${slug}/`, ownerToken, { provider_config: { app_id: 'dify-app-2', api_key: 'app-rotatedKey7777' } });
    expect(changed.statusCode).toBe(200);
    const versions = await versionsOf(slug);
    expect(versions.active_version).toBe(2);
    expect(versions.versions[0]).toMatchObject({ version: 2, changelog: 'Updated provider settings' });
    expect(versions.versions[0]!.provider_config).toMatchObject({ app_id: 'dify-app-2', api_key: '••••••••7777' });
    // Rolling back restores the old key and app id, as a new version.
    const rolledBack = await api('POST', `/api/workflows/${slug}/versions/`, ownerToken, { rollback_to: 1 });
    expect(rolledBack.json().active_version).toBe(3);
    const config = (await api('GET', `/api/app/${slug}/workflow/`)).json();
    expect(config.provider_config).toMatchObject({ app_id: 'dify-app-1', api_key: '••••••••WXYZ' });
  });
});
