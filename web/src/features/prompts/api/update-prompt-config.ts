import type { PromptConfig, PromptConfigUpdate } from '@tollbooth/contract';
import { promptPath } from '@/lib/api/prompts/prompt-keys';
import { api } from '@/lib/api-client';

/** PATCH /api/app/{slug}/prompt/ — a changed template, system prompt or schema becomes a new active version. */
export function updatePromptConfig(slug: string, body: PromptConfigUpdate): Promise<PromptConfig> {
  return api.patch<PromptConfig>(promptPath(slug), body, { auth: 'required' });
}
