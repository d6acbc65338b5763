import { useMutation } from '@tanstack/react-query';
import type { PromptTestResult } from '@tollbooth/contract';
import { promptPath } from '@/lib/api/prompts/prompt-keys';
import { api } from '@/lib/api-client';
import type { ModelName } from '../lib/model-options';

export interface PromptTestRequest {
  prompt_template: string;
  system_prompt?: string;
  model?: ModelName;
  temperature?: number;
  max_tokens?: number;
  top_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  test_inputs: Record<string, unknown>;
  /** Also call the model (free for the owner) and answer with its text and token usage. */
  run?: boolean;
}

/** POST /api/app/{slug}/prompt/test-config/ */
export function testPromptConfig(slug: string, body: PromptTestRequest): Promise<PromptTestResult> {
  return api.post<PromptTestResult>(`${promptPath(slug)}test-config/`, body, { auth: 'required' });
}

export function useTestPromptConfig() {
  return useMutation({ mutationFn: ({ slug, body }: { slug: string; body: PromptTestRequest }) => testPromptConfig(slug, body) });
}
