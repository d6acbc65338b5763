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
