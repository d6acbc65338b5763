import { detectVariables } from '@tollbooth/contract';
import { describe, expect, it } from 'vitest';
import { completionContext, describeVariable, variableAt } from './template-variables';

describe('detectVariables', () => {
  it('finds distinct {{word}} variables in order, tolerating whitespace inside the braces', () => {
    expect(detectVariables('Hi {{ name }}, about {{topic}} and {{name}} again')).toEqual(['name', 'topic']);
    expect(detectVariables('no variables, {single} or {{not a word}}')).toEqual([]);
  });
});

describe('variableAt', () => {
  const line = 'About {{ topic }} now';
  it('finds the variable under a column', () => {
    expect(variableAt(line, 7)).toEqual({ name: 'topic', startColumn: 7, endColumn: 18 });
    expect(variableAt(line, 12)).toEqual({ name: 'topic', startColumn: 7, endColumn: 18 });
    expect(variableAt(line, 3)).toBeNull();
    expect(variableAt(line, 20)).toBeNull();
  });
});

describe('completionContext', () => {
  it('answers inside an open {{ with the typed part and what a completion replaces', () => {
    expect(completionContext('About {{', 9)).toEqual({ typed: '', startColumn: 9, endColumn: 9, closed: false });
    expect(completionContext('About {{ to', 12)).toEqual({ typed: 'to', startColumn: 10, endColumn: 12, closed: false });
    expect(completionContext('About {{to}} now', 10)).toEqual({ typed: 't', startColumn: 9, endColumn: 11, closed: true });
  });

  it('answers null outside a variable', () => {
    expect(completionContext('About {', 8)).toBeNull();
    expect(completionContext('About {{topic}} now', 19)).toBeNull();
    expect(completionContext('{{a b', 6)).toBeNull();
  });
});

describe('describeVariable', () => {
  const fields = [
    { name: 'topic', type: 'string', description: 'What it is about', required: true },
    { name: 'count', type: 'integer', description: '', required: false },
  ];
  it('shows the type and description of a declared field', () => {
    expect(describeVariable('topic', fields)).toBe('**{{topic}}** — `string`, required\n\nWhat it is about');
    expect(describeVariable('count', fields)).toBe('**{{count}}** — `integer`, optional');
  });

  it('says when a variable is not declared', () => {
    expect(describeVariable('other', fields)).toBe('**{{other}}**\n\nNot declared in the input schema');
  });
});
