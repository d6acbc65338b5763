// Runs a prompt test against the model (Test Prompt with run: true): the owner's own, free,
// through the same provider layer as the gateway, and not recorded as an invocation.
import type { ModelRouter, ResolvedModel } from '../providers/registry.ts';
import type { ChatMessage } from '../providers/types.ts';

export interface PromptTestRun {
  model: string;
  /** The model already resolved on the owner's own credential (bring your own key); else the platform's router resolves it. */
  resolved?: ResolvedModel;
  systemPrompt: string;
  renderedTemplate: string;
  temperature: number;
  maxTokens: number;
  topP: number;
  frequencyPenalty: number;
  presencePenalty: number;
  outputSchema: object | null;
}

export async function runPromptTest(models: ModelRouter, timeoutMs: number, run: PromptTestRun) {
  const resolved = run.resolved ?? models.resolve(run.model);
  const messages: ChatMessage[] = [
    ...(run.systemPrompt ? [{ role: 'system' as const, content: run.systemPrompt }] : []),
    { role: 'user', content: run.renderedTemplate },
  ];
  const result = await resolved.provider.complete({
    model: resolved.upstreamModel,
    messages,
    temperature: run.temperature,
    maxTokens: run.maxTokens,
    topP: run.topP,
    frequencyPenalty: run.frequencyPenalty,
    presencePenalty: run.presencePenalty,
    ...(run.outputSchema ? { jsonSchema: run.outputSchema } : {}),
    signal: new AbortController().signal,
    timeoutMs,
  });
  return { answer: result.text, usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens } };
}
