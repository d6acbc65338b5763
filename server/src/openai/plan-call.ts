// OpenAI's requests turned into the gateway's own call: a request names an app by its slug as
// `model`, and becomes the call's mode, inputs, query (planCall); the prepared call then takes the
// caller's conversation, tools and response format (withConversation). Chat Completions and the
// Responses API (responses.ts) both go through it, so the app mapping and refusals cannot drift.
//
// The mapping (docs/openai-compatible-api.md):
// - chat apps (prompt apps in chat mode, Dify chat apps): the last message must be the user's and is
//   the query; for prompt apps the messages before it are the conversation sent to the model after
//   the app's system prompt (nothing is stored: the caller holds the conversation). Dify keeps its
//   conversations itself: only the query is sent, and `conversation_id` continues one.
// - completion and workflow apps: the last user message fills the app's text input (the one named
//   `query`, else its first required text input, else its first text input: catalog/service.ts's
//   textInputOf, so the catalog's snippets and OpenAPI documents say the same) unless `inputs` sets
//   it; `inputs` carries the rest, or `metadata` (strings) for clients that cannot add a body field
//   (requestInputs, decision 0112).
import {
  type ChatCompletionMessage,
  type ChatCompletionRequest,
  fieldsFromDifyForm,
  fieldsFromInputSchema,
  frontendKindOfDifyMode,
  type IoSchema,
} from '@tollbooth/contract';
import type { AppRow } from '../apps/service.ts';
import { textInputOf } from '../catalog/service.ts';
import type { CallBody, CallMode, PreparedCall } from '../gateway/service.ts';
import { invalidParam } from '../platform/errors.ts';
import type { ChatMessage, ModelRequest, ModelResult, ToolCall, ToolCallDelta } from '../providers/types.ts';
import type { InputFormEntry } from '../providers/workflows/types.ts';

/** A conversation sent in one request, all messages' text together (the gateway caps a query at 100 000). */
export const MAX_CONVERSATION_CHARACTERS = 200_000;

/** What the caller asked of the model itself: its tools and the answer's format (prompt apps only). */
export type CallerModelOptions = Pick<ModelRequest, 'tools' | 'toolChoice' | 'jsonSchema' | 'jsonSchemaName' | 'jsonObject'>;

/** What the gateway is asked to run for one chat completion request. */
export interface PlannedCall {
  slug: string;
  mode: CallMode;
  body: CallBody;
  /** Prompt chat apps: the caller's earlier messages, sent between the system prompt and the query. */
  history: ChatMessage[];
  /** Prompt apps: the messages after the query (the model's tool calls and their results), sent after it. */
  after?: ChatMessage[];
  /** Prompt apps: the caller's tools and response format, passed to the model. */
  modelOptions?: CallerModelOptions;
}

export interface AppShape {
  mode: CallMode;
  /** Prompt apps take a conversation from the messages; Dify apps keep their own. */
  takesHistory: boolean;
  /** The input the last user message fills in completion mode, or null when the app has no text input. */
  textInput: string | null;
  inputNames: string[];
  /** Each input's control (text, number, boolean…): a `metadata` string is turned into the input's type. */
  inputControls?: Record<string, string>;
  /** Prompt apps whose creator lets callers send tools and response formats; null: a workflow app (never). */
  callerTools: boolean | null;
  /** The app answers JSON of its own output schema (which wins over the caller's response_format). */
  hasOutputSchema: boolean;
}

/** A prompt app's shape; its text input is the one the catalog's snippets and OpenAPI document name. */
export function promptAppShape(
  app: Pick<AppRow, 'interaction_mode'> & { caller_tools?: boolean },
  version: { input_schema: IoSchema; prompt_template: string; output_schema?: IoSchema | null },
): AppShape {
  const fields = fieldsFromInputSchema(version.input_schema, version.prompt_template);
  return {
    mode: app.interaction_mode,
    takesHistory: true,
    textInput: textInputOf('completion', fields),
    inputNames: fields.map((field) => field.name),
    inputControls: Object.fromEntries(fields.map((field) => [field.name, field.control])),
    callerTools: app.caller_tools !== false,
    hasOutputSchema: Boolean(version.output_schema),
  };
}

export function workflowAppShape(difyMode: string, form: InputFormEntry[]): AppShape {
  const fields = fieldsFromDifyForm(form);
  return {
    mode: frontendKindOfDifyMode(difyMode),
    takesHistory: false,
    textInput: textInputOf('completion', fields),
    inputNames: fields.map((field) => field.name),
    inputControls: Object.fromEntries(fields.map((field) => [field.name, field.control])),
    callerTools: null,
    hasOutputSchema: false,
  };
}

/** OpenAI parameters that would change the answer and that no app honours: refused rather than ignored. */
const REFUSED_PARAMETERS: Record<string, { refuse: (value: unknown) => boolean; why: string }> = {
  logprobs: { refuse: (value) => value === true, why: 'log probabilities are not returned by apps' },
  top_logprobs: { refuse: (value) => value !== null && value !== undefined && value !== 0, why: 'log probabilities are not returned by apps' },
  functions: { refuse: (value) => value !== null && value !== undefined, why: 'the legacy functions parameter is not supported: send tools' },
  function_call: { refuse: (value) => value !== null && value !== undefined, why: 'the legacy function_call parameter is not supported: send tool_choice' },
  audio: { refuse: (value) => value !== null && value !== undefined, why: 'apps answer text only' },
  modalities: {
    refuse: (value) => Array.isArray(value) && value.some((modality) => modality !== 'text'),
    why: 'apps answer text only',
  },
  prediction: { refuse: (value) => value !== null && value !== undefined, why: 'predicted outputs are not supported' },
  web_search_options: { refuse: (value) => value !== null && value !== undefined, why: 'web search is not supported' },
};

/** Refuses, with a 400 naming it, the first parameter no app can honour. */
export function refuseUnsupported(request: Record<string, unknown>): void {
  for (const [name, rule] of Object.entries(REFUSED_PARAMETERS)) {
    if (rule.refuse(request[name])) throw invalidParam(name, rule.why);
  }
}

type CallerToolRequest = Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'response_format'>;

/**
 * The caller's tools and response format for this app: passed to the model for prompt apps whose
 * creator allows them, refused with a 400 naming the parameter otherwise (never ignored).
 */
export function callerModelOptions(request: CallerToolRequest, shape: AppShape): CallerModelOptions {
  const options: CallerModelOptions = {};
  const format = request.response_format;
  const wantsJson = format?.type === 'json_object' || format?.type === 'json_schema';
  const tools = request.tools ?? [];
  const refuseFor = (param: string) => {
    if (shape.callerTools === null) throw invalidParam(param, 'workflow apps answer what their workflow answers: only prompt apps take it');
    if (!shape.callerTools) throw invalidParam(param, "this app's creator has turned off caller-supplied tools and response formats");
  };
  if (wantsJson) {
    refuseFor('response_format');
    // The app's own output schema wins: its answer is already JSON of that schema.
    if (!shape.hasOutputSchema) {
      if (format?.type === 'json_schema') {
        const schema = format.json_schema?.schema;
        if (!schema) throw invalidParam('response_format.json_schema.schema', 'is required with type json_schema');
        options.jsonSchema = schema;
        if (format.json_schema?.name) options.jsonSchemaName = format.json_schema.name;
      } else options.jsonObject = true;
    }
  }
  if (tools.length > 0) {
    refuseFor('tools');
    if (shape.hasOutputSchema) throw invalidParam('tools', 'this app answers JSON of its own output schema: it takes no tools');
    options.tools = tools.map((tool) => ({
      name: tool.function.name,
      ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
      parameters: tool.function.parameters ?? { type: 'object', properties: {} },
      ...(typeof tool.function.strict === 'boolean' ? { strict: tool.function.strict } : {}),
    }));
    const choice = request.tool_choice;
    if (choice !== undefined && choice !== null) {
      if (typeof choice === 'object') {
        if (!tools.some((tool) => tool.function.name === choice.function.name))
          throw invalidParam('tool_choice.function.name', `no tool is named "${choice.function.name}"`);
        options.toolChoice = { name: choice.function.name };
      } else options.toolChoice = choice;
    }
  } else if (request.tool_choice !== undefined && request.tool_choice !== null && request.tool_choice !== 'none' && request.tool_choice !== 'auto') {
    throw invalidParam('tool_choice', 'needs tools');
  }
  return options;
}

/** A request message as the model sees it (system and developer messages are the caller's instructions). */
function toModelMessage(message: ChatCompletionMessage, index: number): ChatMessage {
  const content = messageText(message, index);
  if (message.role === 'tool') {
    if (!message.tool_call_id) throw invalidParam(`messages.${index}.tool_call_id`, 'is required in a tool message');
    return { role: 'tool', content, toolCallId: message.tool_call_id, ...(message.name ? { toolName: message.name } : {}) };
  }
  if (message.role === 'assistant') {
    const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
    return { role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
  }
  return { role: message.role === 'user' ? 'user' : 'system', content };
}

/** Tool messages name the tool only by its call's id: Gemini wants the name, found in the assistant's calls. */
function nameToolResults(messages: ChatMessage[]): ChatMessage[] {
  const names = new Map<string, string>();
  for (const message of messages) for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
  return messages.map((message) =>
    message.role === 'tool' && !message.toolName && message.toolCallId && names.has(message.toolCallId)
      ? { ...message, toolName: names.get(message.toolCallId)! }
      : message,
  );
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

/**
 * The app's inputs from the request (decision 0112): `inputs` (any JSON; an extra body field, as
 * `extra_body` in Python) wins; then `metadata` (OpenAI's own field of strings, typed in every SDK)
 * fills the app's inputs it names, a number's or boolean's text turned into its type; metadata keys
 * the app has no input of are OpenAI's tags and are left alone.
 */
export function requestInputs(request: Pick<ChatCompletionRequest, 'inputs' | 'metadata'>, shape: Pick<AppShape, 'inputNames' | 'inputControls'>) {
  const inputs: Record<string, unknown> = { ...(request.inputs ?? {}) };
  const metadata = request.metadata;
  if (metadata && typeof metadata === 'object') {
    for (const name of shape.inputNames) {
      if (!Object.hasOwn(metadata, name) || inputs[name] !== undefined) continue;
      const value = metadata[name];
      if (typeof value !== 'string') throw invalidParam(`metadata.${name}`, 'must be a string (send other types in "inputs")');
      const control = shape.inputControls?.[name];
      if ((control === 'number' || control === 'integer') && value.trim() !== '' && Number.isFinite(Number(value))) inputs[name] = Number(value);
      else if (control === 'boolean' && (value === 'true' || value === 'false')) inputs[name] = value === 'true';
      else inputs[name] = value;
    }
  }
  return inputs;
}

/** Turns the request into the gateway's call for an app of this shape; throws 400 naming the field. */
export function planCall(request: ChatCompletionRequest, shape: AppShape): PlannedCall {
  const stream = request.stream === true;
  // The body starts with a key, not a spread: `{ ...common, query }` gave every body a hidden class
  // of its own in V8, and prepare() reads every body (decision 0058).
  const responseMode = stream ? ('streaming' as const) : ('blocking' as const);
  const user = request.user !== undefined ? { user: request.user } : {};
  refuseUnsupported(request as Record<string, unknown>);
  const modelOptions = callerModelOptions(request, shape);
  const messages = request.messages;
  const withTools = (modelOptions.tools?.length ?? 0) > 0;
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool' && !withTools) throw invalidParam(`messages.${index}.role`, 'tool messages need the tools they answer (send tools)');
  }
  const lastUserIndex = messages.findLastIndex((message) => message.role === 'user');
  // With tools, the model's calls and their results may follow the query (a tool loop's next step).
  const after =
    withTools && lastUserIndex >= 0 ? messages.slice(lastUserIndex + 1).map((message, offset) => toModelMessage(message, lastUserIndex + 1 + offset)) : [];
  const extra = {
    ...(after.length > 0 ? { after } : {}),
    ...(Object.keys(modelOptions).length > 0 ? { modelOptions } : {}),
  };
  // Part of the body so an Idempotency-Key covers them.
  const bodyExtra = { ...(after.length > 0 ? { openai_after: after } : {}), ...(extra.modelOptions ? { openai_options: modelOptions } : {}) };

  if (shape.mode === 'chat') {
    const last = messages.at(-1);
    if (last?.role !== 'user' && after.length === 0) throw invalidParam('messages', 'must end with a user message: it is the query of a chat app');
    const queryIndex = after.length > 0 ? lastUserIndex : messages.length - 1;
    const query = messageText(messages[queryIndex]!, queryIndex);
    if (query.trim() === '') throw invalidParam(`messages.${queryIndex}.content`, 'must not be empty');
    const history: ChatMessage[] = shape.takesHistory ? messages.slice(0, queryIndex).map(toModelMessage) : [];
    const characters = [...history, ...after].reduce((total, message) => total + message.content.length, query.length);
    if (characters > MAX_CONVERSATION_CHARACTERS) throw invalidParam('messages', `must hold at most ${MAX_CONVERSATION_CHARACTERS} characters of text in all`);
    const named = nameToolResults([...history, ...after]);
    return {
      slug: request.model,
      mode: 'chat',
      history: named.slice(0, history.length),
      ...extra,
      ...(after.length > 0 ? { after: named.slice(history.length) } : {}),
      body: {
        response_mode: responseMode,
        ...user,
        query,
        inputs: requestInputs(request, shape),
        ...(request.conversation_id && !shape.takesHistory ? { conversation_id: request.conversation_id } : {}),
        // Part of the body so an Idempotency-Key covers the whole conversation.
        ...(history.length > 0 ? { openai_history: history } : {}),
        ...bodyExtra,
      },
    };
  }

  const inputs = requestInputs(request, shape);
  const sentInputs = request.inputs !== undefined || Object.keys(inputs).length > 0;
  if (lastUserIndex >= 0) {
    const text = messageText(messages[lastUserIndex]!, lastUserIndex);
    if (shape.textInput !== null) {
      if (inputs[shape.textInput] === undefined) inputs[shape.textInput] = text;
    } else if (!sentInputs) {
      const names = shape.inputNames.length > 0 ? shape.inputNames.join(', ') : 'none';
      throw invalidParam('inputs', `this app has no text input for the message (its inputs: ${names}); send them as an "inputs" object`);
    }
  } else if (!sentInputs) {
    throw invalidParam('messages', 'must contain a user message, or send the app\'s "inputs"');
  }
  return {
    slug: request.model,
    mode: 'completion',
    history: [],
    ...extra,
    ...(after.length > 0 ? { after: nameToolResults(after) } : {}),
    body: { response_mode: responseMode, ...user, inputs, ...bodyExtra },
  };
}

/** What the model answered besides text: its tool calls (whole, or streamed in pieces). */
export interface ToolCallCapture {
  calls: ToolCall[];
  /** Streaming: called for each piece as it arrives. */
  onDelta?: (delta: ToolCallDelta) => void;
}

/**
 * Prompt apps: the caller's conversation goes before the query (chat apps; nothing of it is
 * stored), the model's tool calls and their results after it, and the caller's tools and response
 * format go to the model. The returned capture receives the tool calls the model makes.
 */
export function withConversation(call: PreparedCall, plan: Pick<PlannedCall, 'history' | 'after' | 'modelOptions'>, keepTurn = false): ToolCallCapture {
  const capture: ToolCallCapture = { calls: [] };
  if (call.app.type !== 'prompt') return capture;
  const messages = call.modelRequest.messages;
  const history = call.mode === 'chat' ? plan.history : [];
  call.modelRequest = {
    ...call.modelRequest,
    messages: [...messages.slice(0, -1), ...history, ...messages.slice(-1), ...(plan.after ?? [])],
    ...plan.modelOptions,
  };
  if (call.mode === 'chat' && !keepTurn) {
    // The caller holds an OpenAI conversation: no server-side conversation is kept for it.
    call.keepTurn = false;
  }
  if (plan.modelOptions?.tools?.length) {
    // The model's tool calls reach the caller through this capture: streamed pieces as events, a
    // blocking answer's calls from its result.
    call.modelRequest.onEvent = (event) => {
      if (event.type !== 'tool_call_delta') return;
      const delta = event as unknown as ToolCallDelta;
      const known = capture.calls[delta.index];
      if (known) known.arguments += delta.arguments;
      else
        capture.calls[delta.index] = {
          id: delta.id ?? `call_${call.messageId.replaceAll('-', '').slice(0, 24)}_${delta.index}`,
          name: delta.name ?? '',
          arguments: delta.arguments,
        };
      if (capture.onDelta) {
        capture.onDelta(delta);
        // A streamed tool-call piece is part of the answer: a caller who leaves after it pays (issue 24's rule).
        call.answerSent = true;
      }
    };
    const provider = call.resolved.provider;
    call.resolved = {
      ...call.resolved,
      provider: {
        name: provider.name,
        stream: (request) => provider.stream(request),
        complete: async (request): Promise<ModelResult> => {
          const result = await provider.complete(request);
          capture.calls = result.toolCalls ?? [];
          return result;
        },
      },
    };
  }
  return capture;
}
