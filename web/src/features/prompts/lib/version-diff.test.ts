import { describe, expect, it } from 'vitest';
import { makePromptConfig } from '../testing/fake-prompts-server';
import { diffLines, diffVersions } from './version-diff';

describe('diffLines', () => {
  it('keeps common lines and marks the rest removed or added', () => {
    expect(diffLines('a\nb\nc', 'a\nx\nc\nd')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'x' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' },
    ]);
    expect(diffLines('', 'new')).toEqual([{ kind: 'added', text: 'new' }]);
  });
});

describe('diffVersions', () => {
  it('lists only the fields that differ from the active version', () => {
    const active = makePromptConfig().active_version;
    const older = { ...active, version: 2, prompt_template: 'Summarise {{query}}' };
    expect(diffVersions(active, active)).toEqual([]);
    expect(diffVersions(active, older)).toEqual([
      {
        field: 'Prompt Template',
        lines: [
          { kind: 'removed', text: '{{query}}' },
          { kind: 'added', text: 'Summarise {{query}}' },
        ],
      },
    ]);
  });
});
