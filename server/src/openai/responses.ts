// OpenAI's Responses API (POST /v1/responses) in front of the same paid call as Chat Completions:
// the request is turned into a Chat Completions request (instructions → a system message, input
// items → messages, function tools → tools, text.format → response_format) and planned by
// service.ts's planCall, so the app mapping, refusals, charging and analytics are the same.
//
// previous_response_id (chat apps): a chat app's response id carries its conversation's id
// (resp_<answer id><conversation id>, both UUIDs in hex), so a later request continues the stored
// conversation without a lookup that could miss a turn still being settled; the gateway checks that
// the conversation is the caller's. Decision 0029.
import type { ChatCompletionMessage, ChatCompletionRequest } from '@tollbooth/contract';
import type { CallAnswer } from '../gateway/service.ts';
import { answerPriceCents } from '../platform/call-rules.ts';
import { invalidParam } from '../platform/errors.ts';
import type { ToolCall, ToolCallDelta } from '../providers/types.ts';
import { usageWithCost } from './service.ts';

export type ResponsesRequest = Record<string, unknown> & { model: string };

const hex = (uuid: string) => uuid.replaceAll('-', '');
const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
const uuidOf = (hex32: string) => `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20)}`;

/** The response's id: the answer's id, and for a chat app the conversation it continues. */
export function responseId(answerId: string, conversationId: string | null): string {
  return conversationId && isUuid(conversationId) ? `resp_${hex(answerId)}${hex(conversationId)}` : `resp_${hex(answerId)}`;
}

/** The answer (invocation) id and conversation id a response id names, or null when it is not one of ours. */
export function parseResponseId(id: string): { answerId: string; conversationId: string | null } | null {
  const match = /^resp_([0-9a-f]{32})([0-9a-f]{32})?$/.exec(id);
  if (!match) return null;
  return { answerId: uuidOf(match[1]!), conversationId: match[2] ? uuidOf(match[2]) : null };
}

const text = (value: unknown): value is string => typeof value === 'string';

/** One input item's content as Chat Completions text parts (input_text / output_text); other parts are refused naming them. */
function contentOf(content: unknown, path: string): ChatCompletionMessage['content'] {
  if (text(content)) return content;
  if (!Array.isArray(content)) throw invalidParam(path, 'must be a string or an array of content parts');
  return content.map((part, index) => {
    const record = (part ?? {}) as Record<string, unknown>;
    if ((record.type === 'input_text' || record.type === 'output_text' || record.type === 'text') && text(record.text))
      return { type: 'text', text: record.text };
    throw invalidParam(`${path}.${index}.type`, 'only input_text and output_text parts are supported');
  });
}

/** The Responses request as a Chat Completions request; throws a 400 naming the field it cannot take. */
export function toChatRequest(request: ResponsesRequest): ChatCompletionRequest {
  const messages: ChatCompletionMessage[] = [];
  if (request.instructions !== undefined && request.instructions !== null) {
    if (!text(request.instructions)) throw invalidParam('instructions', 'must be a string');
    messages.push({ role: 'system', content: request.instructions });
  }
  const input = request.input;
  if (text(input)) messages.push({ role: 'user', content: input });
  else if (Array.isArray(input)) {
    for (const [index, raw] of input.entries()) {
      const item = (raw ?? {}) as Record<string, unknown>;
      const path = `input.${index}`;
      if (item.type === 'function_call') {
        if (!text(item.call_id) || !text(item.name)) throw invalidParam(path, 'a function_call needs call_id and name');
        const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: text(item.arguments) ? item.arguments : '{}' } };
        const previous = messages.at(-1);
        if (previous?.role === 'assistant' && previous.tool_calls && !previous.content) previous.tool_calls.push(call);
        else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      } else if (item.type === 'function_call_output') {
        if (!text(item.call_id)) throw invalidParam(`${path}.call_id`, 'is required');
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: text(item.output) ? item.output : JSON.stringify(item.output ?? '') });
      } else if (item.type === undefined || item.type === 'message') {
        const role = item.role;
        if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer')
          throw invalidParam(`${path}.role`, 'must be user, assistant, system or developer');
        messages.push({ role, content: contentOf(item.content, `${path}.content`) });
      } else if (item.type === 'item_reference') {
        throw invalidParam(`${path}.type`, 'item references are not supported: send the item itself (or previous_response_id for a chat app)');
      } else if (item.type === 'reasoning') {
        // Reasoning items of an earlier answer carry nothing an app's model can take back: skipped.
      } else throw invalidParam(`${path}.type`, `input items of type ${String(item.type)} are not supported`);
    }
  } else if (input !== undefined) throw invalidParam('input', 'must be a string or an array of input items');

  const chat: ChatCompletionRequest = { model: request.model, messages, stream: request.stream === true };
  for (const name of ['inputs', 'metadata', 'conversation_id', 'user'] as const)
    if (request[name] !== undefined) Object.assign(chat, { [name]: request[name] });
  if (request.background === true) throw invalidParam('background', 'background responses are not supported');
  if (request.conversation !== undefined && request.conversation !== null) throw invalidParam('conversation', 'not supported: send previous_response_id');
  if (Array.isArray(request.include) && request.include.length > 0) throw invalidParam('include', 'no extra output is available');
  if (request.top_logprobs !== undefined && request.top_logprobs !== null && request.top_logprobs !== 0)
    throw invalidParam('top_logprobs', 'log probabilities are not returned by apps');

  const format = (request.text as { format?: Record<string, unknown> } | undefined)?.format;
  if (format && format.type !== 'text') {
    if (format.type === 'json_object') chat.response_format = { type: 'json_object' };
    else if (format.type === 'json_schema')
      chat.response_format = {
        type: 'json_schema',
        json_schema: {
          ...(text(format.name) ? { name: format.name } : {}),
          ...(format.schema && typeof format.schema === 'object' ? { schema: format.schema as Record<string, unknown> } : {}),
        },
      };
    else throw invalidParam('text.format.type', 'must be text, json_object or json_schema');
  }
  if (Array.isArray(request.tools) && request.tools.length > 0) {
    chat.tools = request.tools.map((raw, index) => {
      const tool = (raw ?? {}) as Record<string, unknown>;
      if (tool.type !== 'function') throw invalidParam(`tools.${index}.type`, 'only function tools are supported');
      if (!text(tool.name)) throw invalidParam(`tools.${index}.name`, 'is required');
      return {
        type: 'function' as const,
        function: {
          name: tool.name,
          ...(text(tool.description) ? { description: tool.description } : {}),
          ...(tool.parameters && typeof tool.parameters === 'object' ? { parameters: tool.parameters as Record<string, unknown> } : {}),
          ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
        },
      };
    });
  }
  const choice = request.tool_choice as unknown;
  if (choice === 'auto' || choice === 'none' || choice === 'required') chat.tool_choice = choice;
  else if (choice && typeof choice === 'object') {
    const named = choice as Record<string, unknown>;
    if (named.type !== 'function' || !text(named.name)) throw invalidParam('tool_choice', 'must be auto, none, required or {type: "function", name}');
    chat.tool_choice = { type: 'function', function: { name: named.name } };
  }
  return chat;
}

interface ResponseContext {
  request: ResponsesRequest;
  id: string;
  createdAt: number;
  previousResponseId: string | null;
}

/** The response object, in progress (no output yet) or complete. */
export function responseObject(
  context: ResponseContext,
  status: 'in_progress' | 'completed' | 'failed',
  output: Record<string, unknown>[],
  answer: CallAnswer | null,
  error: { code: string; message: string } | null = null,
) {
  const request = context.request;
  return {
    id: context.id,
    object: 'response' as const,
    created_at: context.createdAt,
    status,
    error,
    incomplete_details: null,
    instructions: text(request.instructions) ? request.instructions : null,
    max_output_tokens: null,
    model: request.model,
    output,
    parallel_tool_calls: request.parallel_tool_calls !== false,
    previous_response_id: context.previousResponseId,
    reasoning: { effort: null, summary: null },
    store: request.store !== false,
    temperature: null,
    text: request.text ?? { format: { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: Array.isArray(request.tools) ? request.tools : [],
    top_p: null,
    truncation: 'disabled',
    user: text(request.user) ? request.user : null,
    metadata: request.metadata ?? {},
    usage: answer ? responseUsage(answer) : null,
    ...(answer?.conversation_id ? { conversation_id: answer.conversation_id } : {}),
    ...(answer?.metadata.demo ? { demo: answer.metadata.demo } : {}),
  };
}

function responseUsage(answer: CallAnswer) {
  const usage = usageWithCost(answer);
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens,
    cost: usage.cost,
    cost_cents: answerPriceCents(answer),
  };
}

const messageItem = (id: string, content: string, status: 'in_progress' | 'completed') => ({
  type: 'message',
  id,
  status,
  role: 'assistant',
  content: status === 'completed' ? [{ type: 'output_text', text: content, annotations: [], logprobs: [] }] : [],
});

const functionCallItem = (call: ToolCall, status: 'in_progress' | 'completed') => ({
  type: 'function_call',
  id: `fc_${call.id.replace(/^call_/, '')}`,
  call_id: call.id,
  name: call.name,
  arguments: status === 'completed' ? call.arguments : '',
  status,
});

/** A blocking answer's output items: the text as one message (when there is any), then the tool calls. */
export function outputItems(answerId: string, answerText: string, toolCalls: readonly ToolCall[]): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (answerText !== '' || toolCalls.length === 0) items.push(messageItem(`msg_${hex(answerId)}`, answerText, 'completed'));
  for (const call of toolCalls) items.push(functionCallItem(call, 'completed'));
  return items;
}

/**
 * The typed events of a streamed response, in order and numbered: created and in_progress, then
 * output items as they begin (a message with its text deltas, function calls with their argument
 * deltas), each closed by its done events, then completed (or failed).
 */
export function responseEventWriter(context: ResponseContext, send: (event: Record<string, unknown>) => void) {
  let sequence = 0;
  const emit = (type: string, fields: Record<string, unknown>) => send({ type, sequence_number: sequence++, ...fields });
  const messageId = `msg_${context.id.slice(5, 37)}`;
  let message: { index: number; text: string } | null = null;
  const calls: { index: number; call: ToolCall }[] = [];
  let nextIndex = 0;
  const items = () => {
    const all: { index: number; item: Record<string, unknown> }[] = calls.map(({ index, call }) => ({ index, item: functionCallItem(call, 'completed') }));
    if (message) all.push({ index: message.index, item: messageItem(messageId, message.text, 'completed') });
    return all.sort((a, b) => a.index - b.index).map(({ item }) => item);
  };
  const closeMessage = () => {
    if (!message) return;
    const position = { item_id: messageId, output_index: message.index, content_index: 0 };
    emit('response.output_text.done', { ...position, text: message.text, logprobs: [] });
    emit('response.content_part.done', { ...position, part: { type: 'output_text', text: message.text, annotations: [] } });
    emit('response.output_item.done', { output_index: message.index, item: messageItem(messageId, message.text, 'completed') });
  };
  return {
    start() {
      emit('response.created', { response: responseObject(context, 'in_progress', [], null) });
      emit('response.in_progress', { response: responseObject(context, 'in_progress', [], null) });
    },
    text(delta: string) {
      if (!message) {
        message = { index: nextIndex++, text: '' };
        emit('response.output_item.added', { output_index: message.index, item: messageItem(messageId, '', 'in_progress') });
        emit('response.content_part.added', {
          item_id: messageId,
          output_index: message.index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
      }
      message.text += delta;
      emit('response.output_text.delta', { item_id: messageId, output_index: message.index, content_index: 0, delta, logprobs: [] });
    },
    toolCall(delta: ToolCallDelta, call: ToolCall) {
      let entry = calls.find((candidate) => candidate.call === call);
      if (!entry) {
        entry = { index: nextIndex++, call };
        calls.push(entry);
        emit('response.output_item.added', { output_index: entry.index, item: functionCallItem({ ...call, arguments: '' }, 'in_progress') });
      }
      if (delta.arguments !== '') {
        emit('response.function_call_arguments.delta', { item_id: functionCallItem(call, 'completed').id, output_index: entry.index, delta: delta.arguments });
      }
    },
    complete(answer: CallAnswer) {
      closeMessage();
      for (const { index, call } of calls) {
        const item = functionCallItem(call, 'completed');
        emit('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: call.arguments });
        emit('response.output_item.done', { output_index: index, item });
      }
      if (!message && calls.length === 0) {
        // An empty answer is still one (empty) message.
        message = { index: nextIndex++, text: '' };
        emit('response.output_item.added', { output_index: message.index, item: messageItem(messageId, '', 'in_progress') });
        closeMessage();
      }
      emit('response.completed', { response: responseObject(context, 'completed', items(), answer) });
    },
    fail(error: { code: string | null; message: string; param: string | null }) {
      emit('error', { code: error.code, message: error.message, param: error.param });
      emit('response.failed', { response: responseObject(context, 'failed', items(), null, { code: error.code ?? 'server_error', message: error.message }) });
    },
  };
}
