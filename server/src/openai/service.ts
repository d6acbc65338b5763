// OpenAI's Chat Completions in front of the paid gateway: a request is planned into the gateway's
// own call (plan-call.ts) and runs through the gateway's prepare → complete/stream, so charging,
// idempotency, rate limits, the price cap and analytics are exactly those of the Dify endpoints.
// Nothing here moves money. Here: the plan for a request's app, the gateway's answer as a chat
// completion and its chunks, and the reads beside the call (models, the key, a call's charge).
import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type ChatToolCall,
  fieldsFromDifyForm,
  fieldsFromInputSchema,
  frontendKindOfDifyMode,
  type GenerationInfo,
  type OpenAIKeyInfo,
  type OpenAIModel,
  openRouterPricing,
  perCallCard,
} from '@tollbooth/contract';
import type { AuthContext } from '../auth/plugin.ts';
import { readCreditsCents, recordInvocation } from '../billing/service.ts';
import type { Database } from '../db/client.ts';
import { type CallAnswer, type CallMode, type CallTarget, checkCallAccess, type GatewayService } from '../gateway/service.ts';
import type { ApiKeysService } from '../keys/service.ts';
import { answerPriceMicros } from '../platform/call-rules.ts';
import { AppError } from '../platform/errors.ts';
import type { ToolCall, ToolCallDelta } from '../providers/types.ts';
import type { WorkflowsService } from '../workflows/service.ts';
import { type AppShape, type PlannedCall, planCall, promptAppShape, workflowAppShape } from './plan-call.ts';
import { type CallableModelRow, selectCallableModels, selectCallerCharge } from './queries.ts';

const completionId = (id: string) => `chatcmpl-${id}`;

/** OpenAI's usage with the price charged (usage.cost in dollars, as OpenRouter; cost_cents exact). */
export function usageWithCost(answer: CallAnswer) {
  const usage = answer.metadata.usage;
  // The price it was charged, from the gateway's answer (Dify's price fields).
  const micros = answerPriceMicros(answer);
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    cost: micros / 1_000_000,
    cost_cents: Math.ceil(micros / 10_000),
  };
}

const toWireToolCalls = (calls: readonly ToolCall[]): ChatToolCall[] =>
  calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } }));

export function toChatCompletion(answer: CallAnswer, model: string, withConversationId: boolean, toolCalls: readonly ToolCall[] = []): ChatCompletion {
  const message =
    toolCalls.length > 0
      ? { role: 'assistant' as const, content: answer.answer === '' ? null : answer.answer, refusal: null, tool_calls: toWireToolCalls(toolCalls) }
      : { role: 'assistant' as const, content: answer.answer, refusal: null };
  return {
    id: completionId(answer.id),
    object: 'chat.completion',
    created: answer.created_at,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop' }],
    usage: usageWithCost(answer),
    ...(withConversationId && answer.conversation_id ? { conversation_id: answer.conversation_id } : {}),
    ...demoMarks(answer),
  };
}

/** The gateway's demo marks (the built-in demo model answered; never charged), carried over. */
const demoMarks = (answer: CallAnswer) => ({
  ...(answer.metadata.demo ? { demo: answer.metadata.demo } : {}),
  ...(answer.metadata.demo_notice ? { demo_notice: answer.metadata.demo_notice } : {}),
});

/** Builds the chunks of one streamed answer, all with the same id. */
export function chunkWriter(id: string, model: string, includeUsage: boolean, conversationId: string | null) {
  const created = Math.floor(Date.now() / 1000);
  const base = () => ({
    id: completionId(id),
    object: 'chat.completion.chunk' as const,
    created,
    model,
    ...(includeUsage ? { usage: null } : {}),
    ...(conversationId ? { conversation_id: conversationId } : {}),
  });
  // Each chunk is base() given its choices with Object.assign: a spread followed by keys would give
  // every chunk a hidden class of its own in V8 (decision 0058).
  return {
    role: (): ChatCompletionChunk =>
      Object.assign(base(), { choices: [{ index: 0, delta: { role: 'assistant' as const, content: '' }, logprobs: null, finish_reason: null }] }),
    delta: (text: string): ChatCompletionChunk =>
      Object.assign(base(), { choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] }),
    toolCall: (delta: ToolCallDelta): ChatCompletionChunk =>
      Object.assign(base(), {
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index: delta.index,
                  ...(delta.id !== undefined ? { id: delta.id, type: 'function' as const } : {}),
                  function: { ...(delta.name !== undefined ? { name: delta.name } : {}), arguments: delta.arguments },
                },
              ],
            },
            logprobs: null,
            finish_reason: null,
          },
        ],
      }),
    finish: (answer: CallAnswer, calledTools = false): ChatCompletionChunk =>
      Object.assign(
        base(),
        { choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: calledTools ? ('tool_calls' as const) : ('stop' as const) }] },
        demoMarks(answer),
      ),
    /** Only with include_usage: empty choices and the answer's usage. */
    usage: (answer: CallAnswer): ChatCompletionChunk => Object.assign(base(), { choices: [], usage: usageWithCost(answer) }),
  };
}

export function priceInDollars(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

export interface OpenAIDependencies {
  db: Database;
  workflows: WorkflowsService;
  /** The gateway's lookup of a callable app (gateway/service.ts): a call looks its app up once. */
  findTarget: GatewayService['findTarget'];
  /** GET /v1/key. */
  apiKeys?: ApiKeysService;
  /** Calls per minute per key (GET /v1/key's rate_limit). */
  rateLimitPerMinute?: number;
}

const dollars = (cents: number) => cents / 100;

/** An answer id as the OpenAI routes hand it out (chatcmpl-…, resp_…) or the bare id: the invocation's id, or null. */
export function invocationIdOf(id: string): string | null {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const bare = id.startsWith('chatcmpl-') ? id.slice('chatcmpl-'.length) : id;
  if (uuid.test(bare)) return bare.toLowerCase();
  const response = /^resp_([0-9a-f]{32})([0-9a-f]{32})?$/.exec(id);
  if (!response) return null;
  const hex = response[1]!;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function createOpenAIService({ db, workflows, findTarget, apiKeys, rateLimitPerMinute = 600 }: OpenAIDependencies) {
  const shapeOf = async (target: CallTarget, hop: () => string): Promise<AppShape> => {
    if (target.config) return promptAppShape(target.app, target.config.active_version);
    const call = await workflows.readCallConfig(target.app.id);
    const appInfo = call.appInfo ?? (await workflows.refreshAppInfo(target.app.id, call, AbortSignal.timeout(Math.min(call.timeoutMs, 20_000)), hop()));
    return workflowAppShape(appInfo.mode, appInfo.user_input_form);
  };

  return {
    /**
     * Plans the gateway call. The app's existence, the caller and its access are the gateway's to
     * check (and record): until they pass, a plan that lets the gateway refuse the call is returned.
     */
    /** `hop`: the Tollbooth-Hop header of the caller's request (http/call-chain.ts), for a workflow app's provider. */
    async plan(request: ChatCompletionRequest, auth: AuthContext | null, hop: () => string): Promise<PlannedCall & { chatWithConversationId: boolean }> {
      const startedAt = performance.now();
      const target = await findTarget(request.model);
      // The app's own mode when it is known without asking a provider, so the gateway refuses for the right reason.
      const passThrough = {
        slug: request.model,
        mode: target?.app.type === 'prompt' ? target.app.interaction_mode : ('completion' as const),
        history: [],
        body: { inputs: request.inputs ?? {} },
        chatWithConversationId: false,
      };
      if (!target || !auth) return passThrough;
      try {
        checkCallAccess(target.app, auth);
      } catch {
        return passThrough;
      }
      const shape = await shapeOf(target, hop);
      try {
        return Object.assign(planCall(request, shape), { chatWithConversationId: shape.mode === 'chat' && !shape.takesHistory });
      } catch (error) {
        // The caller's mistake, recorded as the gateway records its own refusals.
        await recordInvocation(db, {
          appId: target.app.id,
          callerId: auth.user.id,
          apiKeyId: auth.apiKey?.id ?? null,
          endUser: request.user ?? auth.user.id,
          mode: shape.mode,
          status: 'error',
          errorType: error instanceof AppError ? (error.errorType ?? error.code) : 'internal_error',
          latencyMs: performance.now() - startedAt,
          inputTokens: 0,
          outputTokens: 0,
          priceCents: 0,
          conversationId: null,
        });
        throw error;
      }
    },

    /** GET /v1/key: the calling key's name, limits, spend this month and the credit left on its account. */
    async describeKey(auth: AuthContext): Promise<OpenAIKeyInfo> {
      if (!auth.apiKey || !apiKeys)
        throw new AppError('invalid_param', 'GET /v1/key describes the API key that calls it: send Authorization: Bearer tb_…', 'authorization');
      const [key, credits] = await Promise.all([apiKeys.readKey(auth.user.id, auth.apiKey.id), readCreditsCents(db, auth.user.id)]);
      const limit = key.monthly_spend_limit_cents;
      return {
        data: {
          id: key.id,
          name: key.name,
          label: key.name,
          prefix: key.prefix,
          created_at: key.created_at,
          monthly_spend_limit_cents: limit,
          max_price_cents: key.max_price_cents,
          spent_this_month_cents: key.spent_this_month_cents,
          limit: limit === null ? null : dollars(limit),
          usage: dollars(key.spent_this_month_cents),
          limit_remaining: limit === null ? null : dollars(Math.max(0, limit - key.spent_this_month_cents)),
          credits_cents: credits,
          credits: dollars(credits),
          rate_limit: { requests: rateLimitPerMinute, interval: '1m' },
        },
      };
    },

    /** GET /v1/generation: what one of the caller's own calls was charged. */
    async readCharge(id: string, auth: AuthContext): Promise<GenerationInfo> {
      const invocationId = invocationIdOf(id);
      const row = invocationId ? await selectCallerCharge(db, auth.user.id, invocationId) : null;
      if (!row) throw new AppError('not_found', `No call of yours has the id "${id}"`, 'id');
      const cents = row.status === 'success' ? Number(row.price_cents) : 0;
      return {
        data: {
          id: row.id,
          model: row.slug,
          created_at: new Date(row.created_at).toISOString(),
          status: row.status,
          error_type: row.error_type || null,
          total_cost: dollars(cents),
          cost_cents: cents,
          tokens_prompt: row.input_tokens,
          tokens_completion: row.output_tokens,
          latency: row.latency_ms,
          api_key_id: row.api_key_id,
          demo: row.demo,
        },
      };
    },

    /** The apps this caller may call: its own (any status) and other creators' live public apps. */
    async listModels(auth: AuthContext): Promise<OpenAIModel[]> {
      return (await selectCallableModels(db, auth.user.id)).map((row) => toModel(row, auth.user.id));
    },

    async readModel(slug: string, auth: AuthContext): Promise<OpenAIModel> {
      const target = await findTarget(slug);
      if (!target) throw modelNotFound(slug);
      try {
        checkCallAccess(target.app, auth);
      } catch {
        throw modelNotFound(slug);
      }
      const rows = await selectCallableModels(db, auth.user.id, target.app.id);
      if (!rows[0]) throw modelNotFound(slug);
      return toModel(rows[0], auth.user.id);
    },
  };
}

export const modelNotFound = (slug: string) => new AppError('not_found', `The model "${slug}" does not exist or you do not have access to it.`, 'model');

function toModel(row: CallableModelRow, userId: string): OpenAIModel {
  const mode: CallMode = row.type === 'workflow' ? frontendKindOfDifyMode(row.workflow_mode ?? undefined) : row.interaction_mode;
  const card = row.pricing ?? perCallCard(Number(row.price_cents));
  return {
    id: row.slug,
    object: 'model',
    created: Math.floor(new Date(row.created_at).getTime() / 1000),
    owned_by: row.creator_name,
    name: row.name,
    description: row.description,
    type: row.type,
    mode,
    price_cents: Number(row.price_cents),
    price: priceInDollars(Number(row.price_cents)),
    currency: 'USD',
    upcoming_price_cents: row.upcoming_price_cents === null ? null : Number(row.upcoming_price_cents),
    upcoming_price_at: row.upcoming_price_at ? new Date(row.upcoming_price_at).toISOString() : null,
    pricing: openRouterPricing(card),
    rate_card: card,
    is_owner: row.owner_id === userId,
    ...modelInputs(row, mode),
  };
}

/** An app's inputs and the request parameters it honours, for GET /v1/models. */
function modelInputs(row: CallableModelRow, mode: CallMode) {
  const inputs =
    row.type === 'prompt'
      ? row.input_schema
        ? fieldsFromInputSchema(row.input_schema, row.prompt_template ?? '')
        : []
      : fieldsFromDifyForm(Array.isArray(row.user_input_form) ? row.user_input_form : []);
  const parameters = ['messages', 'stream', 'stream_options', 'inputs', 'user'];
  if (mode === 'chat')
    parameters.push(row.type === 'prompt' ? 'previous_response_id' : 'conversation_id', ...(row.type === 'workflow' ? ['previous_response_id'] : []));
  if (row.type === 'prompt' && row.caller_tools !== false) {
    parameters.push('response_format', 'structured_outputs');
    if (!row.output_schema) parameters.push('tools', 'tool_choice', 'parallel_tool_calls');
  }
  return { inputs, supported_parameters: parameters, ...(row.output_schema ? { output_schema: row.output_schema } : {}) };
}

export type OpenAIService = ReturnType<typeof createOpenAIService>;
