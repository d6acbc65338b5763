// OpenAI's Chat Completions in front of the paid gateway: a request names an app by its slug as
// `model`, is turned into the gateway's own call (mode, inputs, query) and runs through the
// gateway's prepare → complete/stream, so charging, idempotency, rate limits, the price cap and
// analytics are exactly those of the Dify endpoints. Nothing here moves money.
//
// The mapping (docs/openai-compatible-api.md):
// - chat apps (prompt apps in chat mode, Dify chat apps): the last message must be the user's and is
//   the query; for prompt apps the messages before it are the conversation sent to the model after
//   the app's system prompt (nothing is stored: the caller holds the conversation). Dify keeps its
//   conversations itself: only the query is sent, and `conversation_id` continues one.
// - completion and workflow apps: the last user message fills the app's text input (the one named
//   `query`, else its first required text input, else its first text input: catalog/service.ts's
//   textInputOf, so the catalog's snippets and OpenAPI documents say the same) unless `inputs` sets
//   it; `inputs` carries the rest.
import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionMessage,
  type ChatCompletionRequest,
  fieldsFromDifyForm,
  fieldsFromInputSchema,
  frontendKindOfDifyMode,
  type IoSchema,
  type OpenAIModel,
} from '@tollbooth/contract';
import type { AppRow, AppsService } from '../apps/service.ts';
import type { AuthContext } from '../auth/plugin.ts';
import { recordInvocation } from '../billing/service.ts';
import { textInputOf } from '../catalog/service.ts';
import type { Database } from '../db/client.ts';
import { AppError, invalidParam } from '../errors.ts';
import type { CallTargetCache } from '../gateway/service.ts';
import { type CallAnswer, type CallBody, type CallMode, checkCallAccess, type PreparedCall } from '../gateway/service.ts';
import type { PromptsService } from '../prompts/service.ts';
import type { ChatMessage } from '../providers/types.ts';
import type { InputFormEntry } from '../providers/workflows/types.ts';
import type { WorkflowsService } from '../workflows/service.ts';
import { selectCallableModels } from './queries.ts';

/** A conversation sent in one request, all messages' text together (the gateway caps a query at 100 000). */
export const MAX_CONVERSATION_CHARACTERS = 200_000;

/** What the gateway is asked to run for one chat completion request. */
export interface PlannedCall {
  slug: string;
  mode: CallMode;
  body: CallBody;
  /** Prompt chat apps: the caller's earlier messages, sent between the system prompt and the query. */
  history: ChatMessage[];
}

interface AppShape {
  mode: CallMode;
  /** Prompt apps take a conversation from the messages; Dify apps keep their own. */
  takesHistory: boolean;
  /** The input the last user message fills in completion mode, or null when the app has no text input. */
  textInput: string | null;
  inputNames: string[];
}

/** A prompt app's shape; its text input is the one the catalog's snippets and OpenAPI document name. */
export function promptAppShape(app: Pick<AppRow, 'interaction_mode'>, version: { input_schema: IoSchema; prompt_template: string }): AppShape {
  const fields = fieldsFromInputSchema(version.input_schema, version.prompt_template);
  return { mode: app.interaction_mode, takesHistory: true, textInput: textInputOf('completion', fields), inputNames: fields.map((field) => field.name) };
}

export function workflowAppShape(difyMode: string, form: InputFormEntry[]): AppShape {
  const fields = fieldsFromDifyForm(form);
  return {
    mode: frontendKindOfDifyMode(difyMode),
    takesHistory: false,
    textInput: textInputOf('completion', fields),
    inputNames: fields.map((field) => field.name),
  };
}

/** A message's text: a string, or its text parts joined; other parts are refused naming the part. */
export function messageText(message: ChatCompletionMessage, index: number): string {
  if (message.content === null || message.content === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part, partIndex) => {
      if (part.type !== 'text' || typeof part.text !== 'string') {
        throw invalidParam(`messages.${index}.content.${partIndex}`, 'only text parts are supported');
      }
      return part.text;
    })
    .join('\n');
}

/** Turns the request into the gateway's call for an app of this shape; throws 400 naming the field. */
export function planCall(request: ChatCompletionRequest, shape: AppShape): PlannedCall {
  const stream = request.stream === true;
  const common = {
    response_mode: stream ? ('streaming' as const) : ('blocking' as const),
    ...(request.user !== undefined ? { user: request.user } : {}),
  };
  const messages = request.messages;
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') throw invalidParam(`messages.${index}.role`, 'tool messages are not supported: apps do not call tools');
  }
  const lastUserIndex = messages.findLastIndex((message) => message.role === 'user');

  if (shape.mode === 'chat') {
    const last = messages.at(-1);
    if (last?.role !== 'user') throw invalidParam('messages', 'must end with a user message: it is the query of a chat app');
    const query = messageText(last, messages.length - 1);
    if (query.trim() === '') throw invalidParam(`messages.${messages.length - 1}.content`, 'must not be empty');
    const history: ChatMessage[] = shape.takesHistory
      ? messages.slice(0, -1).map((message, index) => ({
          role: message.role === 'assistant' ? 'assistant' : message.role === 'user' ? 'user' : 'system',
          content: messageText(message, index),
        }))
      : [];
    const characters = history.reduce((total, message) => total + message.content.length, query.length);
    if (characters > MAX_CONVERSATION_CHARACTERS) throw invalidParam('messages', `must hold at most ${MAX_CONVERSATION_CHARACTERS} characters of text in all`);
    return {
      slug: request.model,
      mode: 'chat',
      history,
      body: {
        ...common,
        query,
        inputs: request.inputs ?? {},
        ...(request.conversation_id && !shape.takesHistory ? { conversation_id: request.conversation_id } : {}),
        // Part of the body so an Idempotency-Key covers the whole conversation.
        ...(history.length > 0 ? { openai_history: history } : {}),
      },
    };
  }

  const inputs: Record<string, unknown> = { ...(request.inputs ?? {}) };
  if (lastUserIndex >= 0) {
    const text = messageText(messages[lastUserIndex]!, lastUserIndex);
    if (shape.textInput !== null) {
      if (inputs[shape.textInput] === undefined) inputs[shape.textInput] = text;
    } else if (request.inputs === undefined) {
      const names = shape.inputNames.length > 0 ? shape.inputNames.join(', ') : 'none';
      throw invalidParam('inputs', `this app has no text input for the message (its inputs: ${names}); send them as an "inputs" object`);
    }
  } else if (request.inputs === undefined) {
    throw invalidParam('messages', 'must contain a user message, or send the app\'s "inputs"');
  }
  return { slug: request.model, mode: 'completion', history: [], body: { ...common, inputs } };
}

/** Prompt chat apps: the caller's conversation goes before the query; nothing of it is stored. */
export function withConversation(call: PreparedCall, history: ChatMessage[]): PreparedCall {
  if (call.app.type !== 'prompt' || call.mode !== 'chat') return call;
  const messages = call.modelRequest.messages;
  call.modelRequest = { ...call.modelRequest, messages: [...messages.slice(0, -1), ...history, ...messages.slice(-1)] };
  // The caller holds an OpenAI conversation: no server-side conversation is kept for it.
  call.keepTurn = false;
  return call;
}

const completionId = (id: string) => `chatcmpl-${id}`;

export function toChatCompletion(answer: CallAnswer, model: string, withConversationId: boolean): ChatCompletion {
  const usage = answer.metadata.usage;
  return {
    id: completionId(answer.id),
    object: 'chat.completion',
    created: answer.created_at,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: answer.answer, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens },
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
  return {
    role: (): ChatCompletionChunk => ({ ...base(), choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] }),
    delta: (text: string): ChatCompletionChunk => ({ ...base(), choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] }),
    finish: (answer: CallAnswer): ChatCompletionChunk => ({
      ...base(),
      choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }],
      ...demoMarks(answer),
    }),
    /** Only with include_usage: empty choices and the answer's usage. */
    usage: (answer: CallAnswer): ChatCompletionChunk => {
      const usage = answer.metadata.usage;
      return {
        ...base(),
        choices: [],
        usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens },
      };
    },
  };
}

export function priceInDollars(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

export interface OpenAIDependencies {
  db: Database;
  apps: AppsService;
  prompts: PromptsService;
  workflows: WorkflowsService;
  callTargets: CallTargetCache;
}

export function createOpenAIService({ db, apps, prompts, workflows, callTargets }: OpenAIDependencies) {
  // The gateway's own cache entry for the slug (same loader), so a call looks the app up once.
  const loadTarget = (slug: string) =>
    callTargets.get(slug, async () => {
      const found = await apps.findCallableApp(slug);
      return found ? { app: found, config: found.type === 'prompt' ? await prompts.readActivePromptConfig(found.id) : null } : null;
    });

  const shapeOf = async (target: NonNullable<Awaited<ReturnType<typeof loadTarget>>>): Promise<AppShape> => {
    if (target.config) return promptAppShape(target.app, target.config.active_version);
    const call = await workflows.readCallConfig(target.app.id);
    const appInfo = call.appInfo ?? (await workflows.refreshAppInfo(target.app.id, call, AbortSignal.timeout(Math.min(call.timeoutMs, 20_000))));
    return workflowAppShape(appInfo.mode, appInfo.user_input_form);
  };

  return {
    /**
     * Plans the gateway call. The app's existence, the caller and its access are the gateway's to
     * check (and record): until they pass, a plan that lets the gateway refuse the call is returned.
     */
    async plan(request: ChatCompletionRequest, auth: AuthContext | null): Promise<PlannedCall & { chatWithConversationId: boolean }> {
      const startedAt = performance.now();
      const target = await loadTarget(request.model);
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
      const shape = await shapeOf(target);
      try {
        return { ...planCall(request, shape), chatWithConversationId: shape.mode === 'chat' && !shape.takesHistory };
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

    /** The apps this caller may call: its own (any status) and other creators' live public apps. */
    async listModels(auth: AuthContext): Promise<OpenAIModel[]> {
      return (await selectCallableModels(db, auth.user.id)).map((row) => toModel(row, auth.user.id));
    },

    async readModel(slug: string, auth: AuthContext): Promise<OpenAIModel> {
      const target = await loadTarget(slug);
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

function toModel(row: Awaited<ReturnType<typeof selectCallableModels>>[number], userId: string): OpenAIModel {
  const mode: CallMode = row.type === 'workflow' ? frontendKindOfDifyMode(row.workflow_mode ?? undefined) : row.interaction_mode;
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
    is_owner: row.owner_id === userId,
  };
}

export type OpenAIService = ReturnType<typeof createOpenAIService>;
