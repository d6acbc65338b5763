import { describe, expect, it } from 'vitest';
import { makeCatalogAppDetail } from '@/testing/fake-catalog';
import { catalogInputFields, completionInputs, consoleInputs, mainTextInput, schemaInputFields } from './console-inputs';
import type { InputField } from './input-fields';

const text = (name: string, required = false): InputField => ({ name, type: 'string', description: '', required, options: null });

describe('mainTextInput', () => {
  it('is query when the app has one, else the first required free-text field, else the first free-text field', () => {
    expect(mainTextInput([text('topic', true), text('query')], 'completion')).toBe('query');
    expect(mainTextInput([text('tone'), text('topic', true)], 'completion')).toBe('topic');
    expect(mainTextInput([{ ...text('style', true), options: ['a'] }, text('notes')], 'completion')).toBe('notes');
    expect(mainTextInput([{ ...text('count'), type: 'integer' }], 'completion')).toBeNull();
    // A chat app's message travels as the body's query.
    expect(mainTextInput([text('topic', true)], 'chat')).toBeNull();
  });
});

describe('consoleInputs and completionInputs', () => {
  it('sends the Input Text as the app’s text input and the other fields from the form', () => {
    const fields = catalogInputFields(makeCatalogAppDetail().fields);
    const inputs = consoleInputs(fields, 'completion');
    expect(inputs.textInput).toBe('topic');
    expect(inputs.formFields.map((field) => field.name)).toEqual(['style', 'lines']);
    expect(completionInputs(inputs, { style: 'modern', lines: '3' }, 'owls')).toEqual({ style: 'modern', lines: 3, topic: 'owls' });
  });

  it('falls back to query when the app’s fields are unknown', () => {
    const inputs = consoleInputs(null, 'completion');
    expect(inputs).toEqual({ formFields: [], textInput: 'query', known: false });
    expect(completionInputs(inputs, {}, 'hi')).toEqual({ query: 'hi' });
  });

  it('reads every property of a prompt schema, query included, and maps catalog controls to types', () => {
    expect(
      schemaInputFields({
        type: 'object',
        properties: { query: { type: 'string' }, n: { type: 'integer' } },
        required: ['query'],
        additionalProperties: false,
      }).map((field) => [field.name, field.type, field.required]),
    ).toEqual([
      ['query', 'string', true],
      ['n', 'integer', false],
    ]);
    expect(catalogInputFields(makeCatalogAppDetail().fields).map((field) => [field.name, field.type, field.options])).toEqual([
      ['style', 'string', ['classic', 'modern']],
      ['topic', 'string', null],
      ['lines', 'integer', null],
    ]);
  });
});
