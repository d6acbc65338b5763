import { describe, expect, it } from 'vitest';
import { detectVariables, findBraceProblem, renderTemplate } from './template.ts';

describe('detectVariables', () => {
  it('finds distinct names in order, tolerating whitespace inside braces', () => {
    expect(detectVariables('Hi {{name}}, about {{ topic }}: {{name}} again')).toEqual(['name', 'topic']);
  });
  it('finds nothing in plain text or malformed braces', () => {
    expect(detectVariables('no variables here')).toEqual([]);
    expect(detectVariables('{{not closed and {single}} {{two words}}')).toEqual([]);
  });
});

describe('findBraceProblem', () => {
  it('reports stray braces with a position', () => {
    expect(findBraceProblem('Hello {{name')).toMatch(/"\{\{" at position 7/);
    expect(findBraceProblem('Hello name}}')).toMatch(/"\}\}" at position 11/);
    expect(findBraceProblem('Hello {{name}}')).toBeNull();
  });
});

describe('renderTemplate', () => {
  it('renders repeated variables and JSON-encodes non-strings', () => {
    const result = renderTemplate('{{a}} and {{ a }} with {{n}} {{list}}', { a: 'x', n: 3, list: [1, 2] });
    expect(result).toEqual({ ok: true, text: 'x and x with 3 [1,2]', variables: ['a', 'n', 'list'] });
  });
  it('reports missing values and keeps the placeholder', () => {
    const result = renderTemplate('Hi {{name}} from {{place}}', { name: 'Ada' });
    expect(result).toMatchObject({ ok: false, error: 'Missing value for {{place}}', text: 'Hi Ada from {{place}}' });
  });
  it('reports unbalanced braces rather than crashing', () => {
    expect(renderTemplate('Hi {{name', {})).toMatchObject({ ok: false, error: expect.stringContaining('Unbalanced') });
  });
  it('renders a template without variables as is', () => {
    expect(renderTemplate('Just text', {})).toEqual({ ok: true, text: 'Just text', variables: [] });
  });
});

describe('the variable pattern', () => {
  it('can be reused: its global lastIndex never leaks between calls', () => {
    expect(detectVariables('{{a}}')).toEqual(['a']);
    expect(detectVariables('{{a}}')).toEqual(['a']);
    expect(renderTemplate('{{a}}', { a: '1' })).toMatchObject({ ok: true, text: '1' });
  });
});

describe('a template rendered again', () => {
  // The way renderTemplate read a template before it kept each one read (the reference).
  const reference = (template: string, inputs: Record<string, unknown>) =>
    template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => {
      const value = Object.hasOwn(inputs, name) ? inputs[name] : undefined;
      if (value === undefined || value === null) return whole;
      return typeof value === 'string' ? value : JSON.stringify(value);
    });

  it('renders each call with its own inputs, never an earlier call’s', () => {
    const template = 'Write about {{topic}} for {{ audience }}.';
    expect(renderTemplate(template, { topic: 'owls', audience: 'kids' })).toMatchObject({ ok: true, text: 'Write about owls for kids.' });
    expect(renderTemplate(template, { topic: 'bats', audience: 'adults' })).toMatchObject({ ok: true, text: 'Write about bats for adults.' });
    expect(renderTemplate(template, { topic: 'bats' })).toMatchObject({ ok: false, text: 'Write about bats for {{ audience }}.' });
  });

  it('inserts values as they are: no $ patterns, no second pass over braces in a value, no inherited names', () => {
    expect(renderTemplate('[{{a}}] [{{b}}]', { a: "$& $1 $$ $'", b: '{{a}}' })).toMatchObject({ ok: true, text: "[$& $1 $$ $'] [{{a}}]" });
    expect(renderTemplate('{{constructor}} {{__proto__}}', {})).toMatchObject({ ok: false, text: '{{constructor}} {{__proto__}}' });
  });

  it('agrees with the reference on templates with text, repeats, spacing, stray braces and every kind of value', () => {
    const pieces = ['', 'Hi ', '{{a}}', '{{ b }}', '{{a}}', ' {{c}}', '{', '}}', '{{', ' text\n', '{{ d}}', '{{e }}', 'é😀'];
    const inputs = { a: 'x', b: 2, c: { k: [1, null] }, d: null, e: '' };
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 300; i++) {
      let template = '';
      const length = next() % 8;
      for (let j = 0; j < length; j++) template += pieces[next() % pieces.length];
      const result = renderTemplate(template, inputs);
      expect(result.text, template).toBe(reference(template, inputs));
      expect(result.variables, template).toEqual(detectVariables(template));
      expect(renderTemplate(template, inputs), template).toEqual(result);
    }
  });
});
