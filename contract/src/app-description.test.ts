import { describe, expect, it } from 'vitest';
import { describeWorkflowApp, fieldsFromDifyForm, fieldsFromInputSchema, frontendKindOfDifyMode, labelFromName } from './app-description.ts';

describe('labelFromName', () => {
  it('turns variable names into labels', () => {
    expect(labelFromName('target_language')).toBe('Target language');
    expect(labelFromName('maxWords')).toBe('Max words');
    expect(labelFromName('query')).toBe('Query');
  });
});

describe('fieldsFromInputSchema', () => {
  it('picks a control per type: enums as selects, long or unbounded text as textareas, arrays and objects as JSON', () => {
    const fields = fieldsFromInputSchema({
      type: 'object',
      properties: {
        title: { type: 'string', maxLength: 80, title: 'Headline' } as never,
        body: { type: 'string', maxLength: 5000 },
        size: { type: 'string', enum: ['s', 'm', 'l'], default: 'm' },
        score: { type: 'number', minimum: 0, maximum: 1 },
        tags: { type: 'array', items: { type: 'string' } },
        draft: { type: 'boolean', default: true },
      },
      required: ['title'],
    });
    expect(fields.map((field) => [field.name, field.label, field.control, field.required])).toEqual([
      ['title', 'Headline', 'text', true],
      ['body', 'Body', 'paragraph', false],
      ['size', 'Size', 'select', false],
      ['score', 'Score', 'number', false],
      ['tags', 'Tags', 'json', false],
      ['draft', 'Draft', 'boolean', false],
    ]);
    expect(fields[2]).toMatchObject({ options: ['s', 'm', 'l'], default: 'm' });
    expect(fields[3]).toMatchObject({ minimum: 0, maximum: 1 });
  });

  it('orders fields as the template first uses them, the others after', () => {
    const schema = { type: 'object' as const, properties: { a: { type: 'string' as const }, b: { type: 'string' as const }, c: { type: 'string' as const } } };
    expect(fieldsFromInputSchema(schema, '{{ c }} then {{a}}').map((field) => field.name)).toEqual(['c', 'a', 'b']);
  });
});

describe('Dify app info', () => {
  it('maps Dify modes to the chat or completion app', () => {
    expect(['chat', 'advanced-chat', 'agent-chat'].map(frontendKindOfDifyMode)).toEqual(['chat', 'chat', 'chat']);
    expect(['completion', 'workflow', undefined].map(frontendKindOfDifyMode)).toEqual(['completion', 'completion', 'completion']);
  });

  it('maps user_input_form entries and leaves out what a form cannot fill', () => {
    expect(
      fieldsFromDifyForm([
        { 'text-input': { label: 'Name', variable: 'name', required: true, max_length: 20, default: '' } },
        { paragraph: { label: 'Story', variable: 'story', required: false } },
        { select: { label: 'Tone', variable: 'tone', options: ['dry', 'warm'], default: 'dry' } },
        { number: { label: 'Count', variable: 'count', required: true } },
        { checkbox: { label: 'Loud', variable: 'loud' } },
        { file: { label: 'File', variable: 'file' } },
        { 'text-input': { label: 'Bad', variable: 'not a name' } },
        'junk',
      ]),
    ).toEqual([
      { name: 'name', label: 'Name', description: '', control: 'text', required: true, maxLength: 20 },
      { name: 'story', label: 'Story', description: '', control: 'paragraph', required: false },
      { name: 'tone', label: 'Tone', description: '', control: 'select', required: false, default: 'dry', options: ['dry', 'warm'] },
      { name: 'count', label: 'Count', description: '', control: 'number', required: true },
      { name: 'loud', label: 'Loud', description: '', control: 'boolean', required: false },
    ]);
  });

  it("keeps Tollbooth's name and price, and Dify's description when the app has none", () => {
    const description = describeWorkflowApp(
      { slug: 'flow', name: 'Flow', description: '', price_cents: 7 },
      { name: 'Dify name', description: 'From Dify', mode: 'workflow', user_input_form: [] },
    );
    expect(description).toEqual({ slug: 'flow', name: 'Flow', description: 'From Dify', priceCents: 7, kind: 'completion', source: 'workflow', fields: [] });
  });
});
