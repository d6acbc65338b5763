// Runs a prompt test against the model (Test Prompt with run: true): through the same provider layer
// as the gateway, paid from the owner's credits at the model's cost and recorded as a test run,
// apart from callers' calls (billing/test-runs-service.ts, decision 0025). On the owner's own key it costs
// the platform nothing.
import type { TestRunBilling } from '../billing/test-runs-service.ts';
import { modelCostMicros } from '../providers/model-prices.ts';
import type { ModelRouter, ResolvedModel } from '../providers/registry.ts';
import { countPromptTokens } from '../providers/tokens.ts';
import type { ChatMessage } from '../providers/types.ts';

export interface PromptTestRun {
  /** Who runs the test (and pays its model cost), and the app tested (null in the builder). */
  userId: string;
  appId: string | null;
  model: string;
  /** The model already resolved on the owner's own key (bring your own key); else the platform's router resolves it. */
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

export async function runPromptTest(models: ModelRouter, billing: TestRunBilling, timeoutMs: number, run: PromptTestRun) {
  const resolved = run.resolved ?? models.resolve(run.model);
  const messages: ChatMessage[] = [
    ...(run.systemPrompt ? [{ role: 'system' as const, content: run.systemPrompt }] : []),
    { role: 'user', content: run.renderedTemplate },
  ];
  const price = resolved.demo || resolved.ownKey ? null : (resolved.price ?? null);
  const worstCaseMicros = price
    ? modelCostMicros(price, { inputTokens: Math.ceil(countPromptTokens(messages) * 1.25) + 8 * messages.length + 64, outputTokens: run.maxTokens })
    : 0;
  const result = await billing.run(
    { userId: run.userId, appId: run.appId, model: run.model, provider: resolved.providerKind ?? '', price, demo: resolved.demo, worstCaseMicros },
    () =>
      resolved.provider.complete({
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
      }),
  );
  const paidBy = resolved.demo ? 'demo' : resolved.ownKey ? 'own_key' : 'credits';
  return {
    answer: result.text,
    usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens },
    run_cost: { model_cost_micros: result.modelCostMicros, paid_by: paidBy } as const,
  };
}
