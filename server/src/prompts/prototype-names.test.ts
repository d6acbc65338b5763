// Template variables named after Object.prototype members (issue 56 item 6): "{{constructor}}
// {{__proto__}}" made test-config answer "input_schema: cannot be used: schema is invalid:
// data/properties/type must be object", because declaring "__proto__" on a plain object set its
// prototype. Names such as constructor and toString are now inputs like any other, end to end
// (save, test, a paid call); "__proto__", which no JSON body can carry (the server's parser refuses
// it), is refused with a 400 naming it (decision 0090).
import { declareTemplateVariables, type IoSchema } from '@tollbooth/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { createPaidTestContext } from '../test-support/app.ts';

const ctx = await createPaidTestContext();
const owner = await ctx.tokenFor('prototype-owner');
afterAll(() => ctx.close());

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object | string, token = owner) =>
  ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(payload ? { payload } : {}) });

const TEMPLATE = 'Say {{constructor}} then {{toString}}';
let counter = 0;
const newPromptApp = async () =>
  (await api('POST', '/api/app/', { name: `Prototype names ${++counter}`, type: 'prompt', visibility: 'public', price_cents: 3 })).json().slug as string;

describe('variables named after Object.prototype members', () => {
  it('are declared as own properties of the schema, "__proto__" too', () => {
    const empty: IoSchema = { type: 'object', properties: {} };
    const schema = declareTemplateVariables('{{constructor}} {{__proto__}}', empty);
    expect(Object.keys(schema.properties)).toEqual(['constructor', '__proto__']);
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype);
    expect(schema.required).toEqual(['constructor', '__proto__']);
  });

  it('test-config renders {{constructor}} and {{toString}} like any other input, saved or not', async () => {
    const slug = await newPromptApp();
    for (const url of ['/api/prompt/test-config/', `/api/app/${slug}/prompt/test-config/`]) {
      const tested = await api('POST', url, { prompt_template: TEMPLATE, test_inputs: { query: 'q', constructor: 'hello', toString: 'goodbye' } });
      expect(tested.statusCode).toBe(200);
      expect(tested.json()).toMatchObject({
        success: true,
        error: null,
        rendered_template: 'Say hello then goodbye',
        detected_variables: ['constructor', 'toString'],
      });
      // Left blank, they are required inputs a real call would refuse, by name.
      const blank = await api('POST', url, { prompt_template: TEMPLATE, test_inputs: { query: 'q', constructor: 'hello' } });
      expect(blank.json()).toMatchObject({ success: false, error: 'inputs.toString: is required' });
    }
  });

  it('test-config refuses {{__proto__}} with a 400 naming the field and the variable, saved or not', async () => {
    const slug = await newPromptApp();
    for (const url of ['/api/prompt/test-config/', `/api/app/${slug}/prompt/test-config/`]) {
      const tested = await api('POST', url, { prompt_template: '{{constructor}} {{__proto__}}', test_inputs: { constructor: 'a' } });
      expect(tested.statusCode).toBe(400);
      expect(tested.json()).toMatchObject({ code: 'invalid_param', params: 'prompt_template' });
      expect(tested.json().message).toContain('{{__proto__}} cannot be a variable name');
    }
  });

  it('saving refuses {{__proto__}} with a 400 naming it and keeps the version; {{constructor}} saves as a declared input', async () => {
    const slug = await newPromptApp();
    const refused = await api('PATCH', `/api/app/${slug}/prompt/`, { prompt_template: '{{constructor}} {{__proto__}}' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'invalid_param', params: 'prompt_template' });
    expect(refused.json().message).toContain('{{__proto__}}');
    expect((await api('GET', `/api/app/${slug}/prompt/`)).json().active_version.version).toBe(1);

    const saved = await api('PATCH', `/api/app/${slug}/prompt/`, {
      prompt_template: TEMPLATE,
      input_schema: { type: 'object', properties: {}, additionalProperties: false },
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().active_version.input_schema).toEqual({
      type: 'object',
      properties: {
        constructor: { type: 'string', description: 'Declared automatically from the template', maxLength: 2000 },
        toString: { type: 'string', description: 'Declared automatically from the template', maxLength: 2000 },
      },
      required: ['constructor', 'toString'],
      additionalProperties: false,
    });
  });

  it('a paid call gives them values: answered and charged, and refused by name when one is missing', async () => {
    const slug = await newPromptApp();
    expect((await api('PATCH', `/api/app/${slug}/prompt/`, { prompt_template: TEMPLATE })).statusCode).toBe(200);
    expect((await api('PATCH', `/api/app/${slug}/update_status/`, { status: 'live' })).statusCode).toBe(200);
    const caller = await ctx.tokenFor('prototype-caller');
    const before = (await api('GET', '/api/billing/balance/', undefined, caller)).json().credits_cents as number;

    const answered = await api('POST', `/api/app/${slug}/completion-messages`, { inputs: { constructor: 'hello', toString: 'goodbye' } }, caller);
    expect(answered.statusCode, answered.body).toBe(200);
    const sent = JSON.stringify(ctx.model.lastRequest().body);
    expect(sent).toContain('Say hello then goodbye');
    expect((await api('GET', '/api/billing/balance/', undefined, caller)).json().credits_cents).toBe(before - 3);

    const missing = await api('POST', `/api/app/${slug}/completion-messages`, { inputs: { constructor: 'hello' } }, caller);
    expect(missing.statusCode).toBe(400);
    // Missing, not Object.prototype's function ("inputs.toString: must be string" before).
    expect(missing.json().message).toBe('inputs.toString: is required');
  });
});
