import { afterAll, describe, expect, it } from 'vitest';
import { createTestContext } from '../test-support/app.ts';

const ctx = await createTestContext();
const owner = await ctx.tokenFor('prompt-owner');
const stranger = await ctx.tokenFor('prompt-stranger');
afterAll(() => ctx.close());

async function newPromptApp(name: string): Promise<string> {
  return (await call('POST', '/api/app/', { name, type: 'prompt' })).json().slug;
}

function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, token = owner) {
  return ctx.api(method, url, token, payload);
}

const slug = await newPromptApp('Summariser');

describe('prompt configuration', () => {
  it('starts a new prompt app with the builder defaults and a {{query}} template', async () => {
    const response = await call('GET', `/api/app/${slug}/prompt/`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      model: 'gpt-4-turbo',
      temperature: 0.7,
      max_tokens: 2048,
      top_p: 1,
      frequency_penalty: 0,
      presence_penalty: 0,
      system_prompt: 'You are a helpful assistant.',
      active_version: {
        version: 1,
        system_prompt: 'You are a helpful assistant.',
        prompt_template: '{{query}}',
        input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false },
        output_schema: null,
      },
    });
  });

  it('creates a new active version only when the prompt text or schemas change', async () => {
    const settingsOnly = await call('PATCH', `/api/app/${slug}/prompt/`, { temperature: 1.2, model: 'claude-3-haiku' });
    expect(settingsOnly.json()).toMatchObject({ temperature: 1.2, model: 'claude-3-haiku', active_version: { version: 1 } });
    const changed = await call('PATCH', `/api/app/${slug}/prompt/`, {
      prompt_template: 'Summarise: {{text}}',
      input_schema: { type: 'object', properties: { text: { type: 'string', maxLength: 5000 } }, required: ['text'], additionalProperties: false },
      changelog: 'Updated via UI',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().active_version).toMatchObject({ version: 2, prompt_template: 'Summarise: {{text}}', changelog: 'Updated via UI' });
    const versions = (await call('GET', `/api/app/${slug}/prompt/versions/`)).json();
    expect(versions.active_version).toBe(2);
    expect(versions.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
  });

  it('declares every template variable: one the schema leaves out is saved as a required text input', async () => {
    const haiku = await newPromptApp('Haiku declared');
    const saved = await call('PATCH', `/api/app/${haiku}/prompt/`, {
      prompt_template: 'A haiku about {{query}} in {{ mood }} mood',
      input_schema: { type: 'object', properties: { mood: { type: 'string', default: 'calm' } }, additionalProperties: false },
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().active_version.input_schema).toEqual({
      type: 'object',
      properties: {
        mood: { type: 'string', default: 'calm' },
        query: { type: 'string', description: 'Declared automatically from the template', maxLength: 2000 },
      },
      required: ['query'],
      additionalProperties: false,
    });
  });

  it('rolls back to an earlier version', async () => {
    const response = await call('POST', `/api/app/${slug}/prompt/versions/1/activate/`);
    expect(response.json().active_version).toMatchObject({ version: 1, prompt_template: '{{query}}' });
    expect((await call('GET', `/api/app/${slug}/prompt/`)).json().active_version.version).toBe(1);
    expect((await call('POST', `/api/app/${slug}/prompt/versions/9/activate/`)).statusCode).toBe(404);
  });

  it.each([
    [{ temperature: 2.1 }, 'temperature'],
    [{ temperature: -0.1 }, 'temperature'],
    [{ top_p: 1.5 }, 'top_p'],
    [{ frequency_penalty: -2.5 }, 'frequency_penalty'],
    [{ presence_penalty: 3 }, 'presence_penalty'],
    [{ max_tokens: 0 }, 'max_tokens'],
    [{ max_tokens: 8193 }, 'max_tokens'],
    [{ model: 'gpt-5-ultra' }, 'model'],
    [{ input_schema: { type: 'array', properties: {} } }, 'input_schema.type'],
    [{ input_schema: { type: 'object' } }, 'input_schema.properties'],
    [{ input_schema: { type: 'object', properties: {}, required: ['ghost'] } }, 'input_schema.required'],
    [{ input_schema: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } } }, 'input_schema.properties.a.pattern'],
    [{ output_schema: { type: 'object', properties: { a: { type: 'number', minimum: 5, maximum: 1 } } } }, 'output_schema.properties.a.minimum'],
  ])('answers 400 naming the field for %j', async (payload, field) => {
    const response = await call('PATCH', `/api/app/${slug}/prompt/`, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().params).toBe(field);
  });

  it('refuses to save a template that cannot render, naming the field', async () => {
    const before = (await call('GET', `/api/app/${slug}/prompt/versions/`)).json().versions.length;
    const response = await call('PATCH', `/api/app/${slug}/prompt/`, { prompt_template: 'Hi {{name}' });
    expect(response.statusCode).toBe(400);
    expect(response.json().params).toBe('prompt_template');
    expect(response.json().message).toContain('Unbalanced braces');
    expect((await call('GET', `/api/app/${slug}/prompt/versions/`)).json().versions).toHaveLength(before);
  });

  it('writes no new version when the same configuration is saved again', async () => {
    const body = {
      model: 'gpt4',
      temperature: 0.7,
      system_prompt: 'Answer briefly.',
      prompt_template: 'Answer: {{question}}',
      // Key order unlike the database's, which reorders jsonb keys.
      input_schema: {
        type: 'object',
        properties: { question: { type: 'string', description: 'Q', maxLength: 200 } },
        required: ['question'],
        additionalProperties: false,
      },
      output_schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false },
      changelog: 'Updated via UI',
    };
    const same = await newPromptApp('Same again');
    const first = (await call('PATCH', `/api/app/${same}/prompt/`, body)).json();
    expect(first.active_version.version).toBe(2);
    const again = await call('PATCH', `/api/app/${same}/prompt/`, body);
    expect(again.statusCode).toBe(200);
    expect(again.json().active_version.version).toBe(2);
    expect((await call('GET', `/api/app/${same}/prompt/versions/`)).json().versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
  });

  it('is owner only and absent for workflow apps', async () => {
    expect((await call('GET', `/api/app/${slug}/prompt/`, undefined, stranger)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/app/${slug}/prompt/`, { temperature: 1 }, stranger)).statusCode).toBe(404);
    const flow = (await call('POST', '/api/app/', { name: 'Flow', type: 'workflow', provider_config: { app_id: 'a', api_key: 'k' } })).json();
    const response = await call('GET', `/api/app/${flow.slug}/prompt/`);
    expect(response.statusCode).toBe(404);
    expect(response.json().message).toBe('Prompt not found');
  });

  it('is copied with the whole version history when the app is duplicated', async () => {
    await call('PATCH', `/api/app/${slug}/prompt/`, { system_prompt: 'Be terse.' });
    const copy = (await call('POST', `/api/app/${slug}/duplicate/`)).json();
    const copied = (await call('GET', `/api/app/${copy.slug}/prompt/`)).json();
    expect(copied).toMatchObject({ system_prompt: 'Be terse.', model: 'claude-3-haiku', temperature: 1.2 });
    expect((await call('GET', `/api/app/${copy.slug}/prompt/versions/`)).json().versions).toHaveLength(3);
  });
});

describe('POST /api/app/{slug}/prompt/test-config/', () => {
  it('renders the template and lists its variables', async () => {
    const response = await call('POST', `/api/app/${slug}/prompt/test-config/`, {
      prompt_template: 'Write about {{topic}} for {{ audience }}; {{topic}} again',
      input_schema: { type: 'object', properties: {} },
      test_inputs: { topic: 'owls', audience: 'kids' },
    });
    expect(response.json()).toEqual({
      success: true,
      message: 'Template rendered successfully',
      error: null,
      rendered_template: 'Write about owls for kids; owls again',
      detected_variables: ['topic', 'audience'],
    });
  });

  it('renders blank inputs with the schema default, then an empty value; only a template that cannot render is an error', async () => {
    const withDefaults = await newPromptApp('With defaults');
    await call('PATCH', `/api/app/${withDefaults}/prompt/`, {
      prompt_template: 'About {{topic}} for {{name}}',
      input_schema: { type: 'object', properties: { topic: { type: 'string', default: 'owls' }, name: { type: 'string' } }, additionalProperties: false },
    });
    // The saved schema's defaults.
    const saved = (
      await call('POST', `/api/app/${withDefaults}/prompt/test-config/`, { prompt_template: 'About {{topic}} for {{name}}', test_inputs: { topic: '' } })
    ).json();
    expect(saved).toMatchObject({ success: true, error: null, rendered_template: 'About owls for ', detected_variables: ['topic', 'name'] });
    expect(saved.message).toBe('Template rendered successfully, using the schema default for {{topic}} and an empty value for {{name}}');
    // The unsaved schema in the request wins over the saved one.
    const unsaved = (
      await call('POST', `/api/app/${slug}/prompt/test-config/`, {
        prompt_template: 'Hi {{name}}',
        input_schema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } } },
        test_inputs: {},
      })
    ).json();
    expect(unsaved).toMatchObject({ success: true, rendered_template: 'Hi Ada' });
    const unbalanced = (await call('POST', `/api/app/${slug}/prompt/test-config/`, { prompt_template: 'Hi {{name' })).json();
    expect(unbalanced).toMatchObject({ success: false, message: 'Template has problems', error: expect.stringContaining('Unbalanced braces') });
  });

  it('refuses a required input left blank, as a real call does, and takes the template’s variables as required inputs', async () => {
    const blank = (
      await call('POST', `/api/app/${slug}/prompt/test-config/`, {
        prompt_template: 'A haiku about {{query}}',
        input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
        test_inputs: { query: '' },
        run: true,
      })
    ).json();
    expect(blank).toMatchObject({ success: false, message: 'A real call would refuse these inputs', error: 'inputs.query: is required' });
    expect(blank.answer).toBeUndefined();
    // Not declared at all: still a required input, as saving declares it.
    const undeclared = (
      await call('POST', '/api/prompt/test-config/', {
        prompt_template: 'A haiku about {{query}}',
        input_schema: { type: 'object', properties: {} },
        test_inputs: {},
      })
    ).json();
    expect(undeclared).toMatchObject({ success: false, error: 'inputs.query: is required' });
    const given = (
      await call('POST', '/api/prompt/test-config/', {
        prompt_template: 'A haiku about {{query}}',
        input_schema: { type: 'object', properties: {} },
        test_inputs: { query: 'owls' },
      })
    ).json();
    expect(given).toMatchObject({ success: true, rendered_template: 'A haiku about owls' });
    // A value of the wrong type is refused as a call refuses it.
    const wrongType = (
      await call('POST', '/api/prompt/test-config/', {
        prompt_template: 'Count {{n}}',
        input_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        test_inputs: { n: 'many' },
      })
    ).json();
    expect(wrongType).toMatchObject({ success: false, error: 'inputs.n: must be integer' });
  });

  it("checks the request's schemas as saving does", async () => {
    const response = await call('POST', `/api/app/${slug}/prompt/test-config/`, {
      prompt_template: 'Hi',
      output_schema: { type: 'object', properties: { a: { type: 'string', pattern: '(a+)+\\1' } } },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().params).toBe('output_schema.properties.a.pattern');
  });
});

describe('POST /api/prompt/test-config/ (a prompt not saved yet)', () => {
  it('tests the unsaved configuration without creating or saving anything', async () => {
    const before = (await call('GET', '/api/app/')).json();
    const response = await call('POST', '/api/prompt/test-config/', {
      prompt_template: 'Write about {{topic}}',
      system_prompt: 'You are a poet.',
      model: 'gemini',
      input_schema: { type: 'object', properties: { topic: { type: 'string', default: 'the sea' } } },
      test_inputs: {},
      run: true,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, rendered_template: 'Write about the sea' });
    expect(response.json().answer).toContain('Write about the sea');
    expect((await call('GET', '/api/app/')).json()).toEqual(before);
  });

  it('applies the schema limits to both schemas and needs a signed-in user', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, { type: 'string' }]));
    const output = await call('POST', '/api/prompt/test-config/', { prompt_template: 'Hi', output_schema: { type: 'object', properties: tooMany } });
    expect(output.statusCode).toBe(400);
    expect(output.json().params).toBe('output_schema.properties');
    const input = await call('POST', '/api/prompt/test-config/', {
      prompt_template: 'Hi',
      input_schema: { type: 'object', properties: { a: { type: 'string', format: 'regex' } } },
    });
    expect(input.statusCode).toBe(400);
    expect(input.json().params).toBe('input_schema.properties.a.format');
    const anonymous = await ctx.app.inject({ method: 'POST', url: '/api/prompt/test-config/', payload: { prompt_template: 'Hi' } });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('POST /api/app/{slug}/prompt/test-config/ with run', () => {
  it('also calls the model (the demo model here, no provider configured) and returns its answer and usage', async () => {
    const response = await call('POST', `/api/app/${slug}/prompt/test-config/`, {
      prompt_template: 'Write a haiku about {{topic}}',
      system_prompt: 'You are a poet.',
      input_schema: { type: 'object', properties: {} },
      test_inputs: { topic: 'owls' },
      run: true,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ success: true, rendered_template: 'Write a haiku about owls', detected_variables: ['topic'] });
    expect(body.answer).toContain('demo');
    expect(body.answer).toContain('Write a haiku about owls');
    expect(body.usage.input_tokens).toBeGreaterThan(0);
    expect(body.usage.output_tokens).toBeGreaterThan(0);
    // A test run is free and not an invocation.
    const { rows } = await ctx.database.db.query('SELECT 1 FROM invocations');
    expect(rows).toEqual([]);
  });

  it('does not call the model when the template does not render', async () => {
    const body = (await call('POST', `/api/app/${slug}/prompt/test-config/`, { prompt_template: 'Hi {{name', run: true })).json();
    expect(body.success).toBe(false);
    expect(body.answer).toBeUndefined();
  });
});
