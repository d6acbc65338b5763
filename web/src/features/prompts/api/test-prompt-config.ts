import { useMutation } from '@tanstack/react-query';
import type { IoSchema, KeySource, PromptTestResult } from '@tollbooth/contract';
import { promptPath } from '@/lib/api/prompts/prompt-keys';
import { api } from '@/lib/api-client';
import type { ModelName } from '../lib/model-options';

export interface PromptTestRequest {
  prompt_template: string;
  system_prompt?: string;
  model?: ModelName;
  /** 'own': the test goes to the creator's own provider key. */
  key_source?: KeySource;
  temperature?: number;
  max_tokens?: number;
  top_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  /** The unsaved schemas: blank test inputs take the input schema's defaults. */
  input_schema?: IoSchema;
  output_schema?: IoSchema | null;
  test_inputs: Record<string, unknown>;
  /** Also call the model (free for the owner) and answer with its text and token usage. */
  run?: boolean;
}

/** POST /api/app/{slug}/prompt/test-config/ */
export function testPromptConfig(slug: string, body: PromptTestRequest): Promise<PromptTestResult> {
  return api.post<PromptTestResult>(`${promptPath(slug)}test-config/`, body, { auth: 'required' });
}

/** POST /api/prompt/test-config/ — a prompt that is not saved yet (or not saved as it is now); nothing is saved. */
export function testUnsavedPromptConfig(body: PromptTestRequest): Promise<PromptTestResult> {
  return api.post<PromptTestResult>('/prompt/test-config/', body, { auth: 'required' });
}

export function useTestPromptConfig() {
  return useMutation({ mutationFn: ({ slug, body }: { slug: string; body: PromptTestRequest }) => testPromptConfig(slug, body) });
}

export function useTestUnsavedPromptConfig() {
  return useMutation({ mutationFn: testUnsavedPromptConfig });
}
