import { describe, expect, it } from 'vitest';
import { type PreparedModelRequest, withDeadline } from './types.ts';

// withDeadline spells out every key of a model request instead of spreading it (decision 0058): a
// key it forgot would never reach the provider.
describe('withDeadline', () => {
  const signal = new AbortController().signal;

  it('passes every key of a full request, with the signal and deadline', () => {
    const request: Required<PreparedModelRequest> = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      temperature: 0.3,
      maxTokens: 64,
      topP: 0.9,
      frequencyPenalty: 0.1,
      presencePenalty: 0.2,
      jsonSchema: { type: 'object', properties: { answer: { type: 'string' } } },
      jsonSchemaName: 'answer',
      jsonObject: true,
      tools: [{ name: 'lookup', description: 'Looks up', parameters: { type: 'object', properties: {} } }],
      toolChoice: 'auto',
      onEvent: () => undefined,
    };
    const sent = withDeadline(request, signal, 30_000);
    expect(sent).toEqual({ ...request, signal, timeoutMs: 30_000 });
    // Every key of the request is in what is sent (toEqual would pass a missing key that is undefined on both).
    for (const key of Object.keys(request)) expect(sent[key as keyof typeof sent], key).toBe(request[key as keyof typeof request]);
  });

  it('leaves the keys a request does not set undefined, as a spread would', () => {
    const sent = withDeadline({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }, signal, 5);
    expect(JSON.parse(JSON.stringify({ ...sent, signal: null }))).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      signal: null,
      timeoutMs: 5,
    });
    expect(sent.temperature).toBeUndefined();
    expect(sent.tools).toBeUndefined();
    expect(sent.signal).toBe(signal);
  });
});
