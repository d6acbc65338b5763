// The mapping of an OpenAI request onto the gateway's call, without a server.
import type { IoSchema } from '@tollbooth/contract';
import { describe, expect, it } from 'vitest';
import { AppError } from '../platform/errors.ts';
import { MAX_CONVERSATION_CHARACTERS, planCall, promptAppShape, workflowAppShape } from './plan-call.ts';
import { priceInDollars } from './service.ts';

const schema = (properties: IoSchema['properties']): IoSchema => ({ type: 'object', properties, additionalProperties: false });
const completionApp = (properties: IoSchema['properties'], required: string[] = [], template = '') =>
  promptAppShape({ interaction_mode: 'completion' }, { input_schema: { ...schema(properties), required }, prompt_template: template });
const chatApp = promptAppShape({ interaction_mode: 'chat' }, { input_schema: schema({ query: { type: 'string' } }), prompt_template: '{{query}}' });

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return { code: (error as AppError).code, param: (error as AppError).params };
  }
  throw new Error('expected a refusal');
};

describe('planCall', () => {
  it('puts the last user message into the only text input of a completion app, leaving inputs that set it alone', () => {
    const shape = completionApp({ topic: { type: 'string' }, count: { type: 'integer' } });
    const messages = [
      { role: 'user' as const, content: 'first' },
      { role: 'assistant' as const, content: 'ok' },
      { role: 'user' as const, content: 'owls' },
    ];
    expect(planCall({ model: 'app', messages, inputs: { count: 3 } }, shape)).toEqual({
      slug: 'app',
      mode: 'completion',
      history: [],
      body: { response_mode: 'blocking', inputs: { topic: 'owls', count: 3 } },
    });
    expect(planCall({ model: 'app', messages, inputs: { topic: 'bats' }, stream: true, user: 'u1' }, shape).body).toEqual({
      response_mode: 'streaming',
      user: 'u1',
      inputs: { topic: 'bats' },
    });
  });

  it("picks the text input as the app's public page does: query, else the first required text input, else the first", () => {
    expect(completionApp({ tone: { type: 'string' }, query: { type: 'string' } }).textInput).toBe('query');
    // Template order, since stored schemas do not keep theirs.
    expect(completionApp({ style: { type: 'string' }, topic: { type: 'string' } }, [], '{{topic}} as {{style}}').textInput).toBe('topic');
    expect(completionApp({ style: { type: 'string' }, topic: { type: 'string' } }, ['style'], '{{topic}} as {{style}}').textInput).toBe('style');
    expect(completionApp({ tone: { type: 'string', enum: ['dry', 'warm'] }, count: { type: 'integer' } }).textInput).toBeNull();
    const numbersOnly = completionApp({ count: { type: 'integer' } });
    expect(refusal(() => planCall({ model: 'app', messages: [{ role: 'user', content: 'owls' }] }, numbersOnly))).toEqual({
      code: 'invalid_param',
      param: 'inputs',
    });
    expect(planCall({ model: 'app', messages: [{ role: 'user', content: 'owls' }], inputs: { count: 2 } }, numbersOnly).body.inputs).toEqual({ count: 2 });
    expect(refusal(() => planCall({ model: 'app', messages: [] }, numbersOnly))).toEqual({ code: 'invalid_param', param: 'messages' });
  });

  it('turns a chat into the query and the conversation before it, with text parts joined', () => {
    const plan = planCall(
      {
        model: 'app',
        messages: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: null },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Owls?' },
              { type: 'text', text: 'Please.' },
            ],
          },
        ],
      },
      chatApp,
    );
    expect(plan.mode).toBe('chat');
    expect(plan.body.query).toBe('Owls?\nPlease.');
    expect(plan.history).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '' },
    ]);
    // The conversation is part of the body, so an Idempotency-Key covers it.
    expect((plan.body as { openai_history?: unknown }).openai_history).toEqual(plan.history);
  });

  it('refuses what a chat app cannot take, naming the field', () => {
    expect(refusal(() => planCall({ model: 'app', messages: [{ role: 'assistant', content: 'hi' }] }, chatApp)).param).toBe('messages');
    expect(refusal(() => planCall({ model: 'app', messages: [{ role: 'user', content: '  ' }] }, chatApp)).param).toBe('messages.0.content');
    expect(refusal(() => planCall({ model: 'app', messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }, chatApp)).param).toBe(
      'messages.0.content.0',
    );
    expect(
      refusal(() =>
        planCall(
          {
            model: 'app',
            messages: [
              { role: 'tool', content: 'x' },
              { role: 'user', content: 'y' },
            ],
          },
          chatApp,
        ),
      ).param,
    ).toBe('messages.0.role');
    const long = 'x'.repeat(MAX_CONVERSATION_CHARACTERS / 2);
    expect(
      refusal(() =>
        planCall(
          {
            model: 'app',
            messages: [
              { role: 'user', content: long },
              { role: 'user', content: `${long}!` },
            ],
          },
          chatApp,
        ),
      ).param,
    ).toBe('messages');
  });

  it('sends only the query to a Dify chat app, with its conversation_id', () => {
    const shape = workflowAppShape('advanced-chat', [{ 'text-input': { label: 'Name', variable: 'customer' } }]);
    const plan = planCall(
      {
        model: 'flow',
        messages: [
          { role: 'user', content: 'before' },
          { role: 'user', content: 'now' },
        ],
        conversation_id: '7d9e4a52-2c4f-4a53-9d0e-1f0d3c1f2b11',
      },
      shape,
    );
    expect(plan).toEqual({
      slug: 'flow',
      mode: 'chat',
      history: [],
      body: { response_mode: 'blocking', query: 'now', inputs: {}, conversation_id: '7d9e4a52-2c4f-4a53-9d0e-1f0d3c1f2b11' },
    });
    expect(workflowAppShape('workflow', [{ select: { variable: 'tone', options: ['a'] } }, { paragraph: { variable: 'text' } }])).toMatchObject({
      mode: 'completion',
      textInput: 'text',
    });
  });
});

it('writes prices in dollars', () => {
  expect([0, 5, 30, 250, 100_000].map(priceInDollars)).toEqual(['0.00', '0.05', '0.30', '2.50', '1000.00']);
});
