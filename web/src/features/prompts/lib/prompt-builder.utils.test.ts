import { slugify } from '@tollbooth/contract';
import { describe, expect, it } from 'vitest';
import { centsToDollars, dollarsToCents } from '@/lib/price';
import { expectAnswers } from '@/testing/answers';
import { makeApp } from '@/testing/fake-apps-server';
import { makePromptConfig } from '../testing/fake-prompts-server';
import { buildPromptConfigBody, draftFromSaved, initialDraft, validateDraft, withName } from './prompt-builder.utils';

describe('slugify (the contract rule the server applies)', () => {
  it('lowercases, turns runs of non-alphanumerics into one hyphen and trims hyphens', () => {
    expectAnswers(slugify, ['  Hello, World!! ', 'A--B__C  d', 'Émile & Co', '!!!'], ['hello-world', 'a-b-c-d', 'mile-co', 'app']);
  });
});

describe('withName', () => {
  it('moves the slug with the name until the slug was edited', () => {
    const draft = withName(initialDraft(), 'My Prompt');
    expect(draft.slug).toBe('my-prompt');
    expect(withName({ ...draft, slug: 'mine', slugEdited: true }, 'Other').slug).toBe('mine');
  });
});

describe('price conversion', () => {
  it('converts dollars to integer cents by rounding', () => {
    expectAnswers(dollarsToCents, ['1', '0.01', '2.675', '1.005', '0.004', '19.99', '', 'abc'], [100, 1, 268, 101, 0, 1999, 0, 0]);
  });

  it('shows cents as dollars with two decimals', () => {
    expect(centsToDollars(100)).toBe('1.00');
    expect(centsToDollars(5)).toBe('0.05');
  });
});

describe('validateDraft', () => {
  it('reports the first missing field with the spec text', () => {
    expect(validateDraft({ name: ' ', system_prompt: '', user_prompt_template: '' })).toBe('Prompt name is required');
    expect(validateDraft({ name: 'A', system_prompt: ' \n', user_prompt_template: '' })).toBe('System prompt is required');
    expect(validateDraft({ name: 'A', system_prompt: 'S', user_prompt_template: '  ' })).toBe('User prompt template is required');
    expect(validateDraft({ name: 'A', system_prompt: 'S', user_prompt_template: 'T' })).toBeNull();
  });
});

describe('initialDraft', () => {
  it("has the spec's builder defaults", () => {
    const body = buildPromptConfigBody(initialDraft());
    expect(body).toMatchObject({ model: 'gpt-4-turbo', temperature: 0.7, max_tokens: 2048, top_p: 1, frequency_penalty: 0, presence_penalty: 0 });
    expect(initialDraft()).toMatchObject({ status: 'draft', visibility: 'private', price: '1.00' });
  });
});

describe('draftFromSaved', () => {
  it('sends back what it loaded when nothing changed', () => {
    const config = makePromptConfig({
      model: 'gemini',
      temperature: 1.1,
      presence_penalty: -1,
      version: { output_schema: { type: 'object', properties: { a: { type: 'string' } }, required: [], additionalProperties: false } },
    });
    const draft = draftFromSaved(makeApp({ price_cents: 1234 }), config);
    expect(draft.price).toBe('12.34');
    expect(buildPromptConfigBody(draft)).toEqual({
      model: 'gemini',
      key_source: 'platform',
      temperature: 1.1,
      max_tokens: 2048,
      top_p: 1,
      frequency_penalty: 0,
      presence_penalty: -1,
      system_prompt: config.active_version.system_prompt,
      prompt_template: config.active_version.prompt_template,
      input_schema: config.active_version.input_schema,
      output_schema: config.active_version.output_schema,
      changelog: 'Updated via UI',
    });
  });
});
