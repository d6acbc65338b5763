import type { WorkflowConfig } from '@tollbooth/contract';
import { describe, expect, it } from 'vitest';
import { workflowInputFields } from './workflow-input-fields';

describe('workflowInputFields', () => {
  it('turns the Dify input form into console fields, leaving out query', () => {
    const config = {
      app_info: {
        name: 'x',
        description: '',
        mode: 'chat',
        user_input_form: [
          { 'text-input': { label: 'Customer', variable: 'customer', required: true } },
          { select: { label: 'Tone', variable: 'tone', required: false, options: ['calm', 'loud'] } },
          { number: { label: 'Count', variable: 'count', required: false } },
          { paragraph: { label: 'Query', variable: 'query', required: false } },
        ],
      },
    } as unknown as WorkflowConfig;
    expect(workflowInputFields(config)).toEqual([
      { name: 'customer', type: 'string', description: 'Customer', required: true, options: null },
      { name: 'tone', type: 'string', description: 'Tone', required: false, options: ['calm', 'loud'] },
      { name: 'count', type: 'number', description: 'Count', required: false, options: null },
    ]);
    expect(workflowInputFields(undefined)).toEqual([]);
  });
});
