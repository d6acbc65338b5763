// OpenAI-compatible caller endpoints: POST /v1/chat/completions and GET /v1/models. Errors use
// OpenAI's envelope {error: {message, type, code, param}} so OpenAI clients surface them as
// their own error types (401 AuthenticationError, 404 NotFoundError, 429 RateLimitError…).

import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  CallHeaders,
  ChatCompletion,
  type ChatCompletionChunk,
  ChatCompletionRequest,
  GenerationInfo,
  GenerationQuery,
  OpenAIError,
  OpenAIKeyInfo,
  OpenAIModel,
  OpenAIModelList,
  OpenAIModelParams,
  ResponseObject,
  ResponsesRequest,
} from '@tollbooth/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { endStream, identifyPayer, openCall, paidCallRoute, preparePaidCall, replayHeaders, startPings, streamFailure } from '../gateway/door-service.ts';
import type { CallAnswer, GatewayService, PreparedCall } from '../gateway/service.ts';
import { hopHeaderOf } from '../http/call-chain.ts';
import type { CallerConnection } from '../http/caller-connection.ts';
import { bearerChallenge } from '../http/error-handler.ts';
import { openEventStream } from '../http/event-stream.ts';
import { refusedMultipartBody } from '../http/request-guards.ts';
import { keyedRoutes } from '../http/route-schema.ts';
import { AppError, invalidParam } from '../platform/errors.ts';
import { describeSchemaError } from '../platform/validation.ts';
import { registerCompression } from '../web-app/compression.ts';
import { type ToolCallCapture, withConversation } from './plan-call.ts';
import { outputItems, parseResponseId, responseEventWriter, responseId, responseObject, toChatRequest } from './responses.ts';
import { chunkWriter, type OpenAIService, toChatCompletion } from './service.ts';

const errors = {
  400: OpenAIError,
  401: OpenAIError,
  402: OpenAIError,
  403: OpenAIError,
  404: OpenAIError,
  406: OpenAIError,
  409: OpenAIError,
  429: OpenAIError,
  502: OpenAIError,
  504: OpenAIError,
};

/** The options of a route a caller's key calls: tagged openai, needing a bearer token. */
const keyed = keyedRoutes(['openai']);

const TYPE_BY_STATUS: Record<number, string> = {
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  429: 'rate_limit_exceeded',
};

const FRAMEWORK_CODES: Record<number, string> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'unsupported_media_type',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/** Our error in OpenAI's envelope; the param names the request field (the gateway's query is the messages). */
export function toOpenAIError(error: FastifyError | AppError): { status: number; body: OpenAIError } {
  let status: number;
  let message: string;
  let code: string | null;
  let param: string | null = null;
  if (error instanceof AppError) {
    status = error.status;
    message = error.message;
    code = error.code;
    param = error.params ?? null;
    if (param === 'query') {
      param = 'messages';
      message = message.replace(/^query:/, 'messages:');
    }
    // A missing input of an app with several: say how an OpenAI client sends it (decision 0112).
    const missing = /^inputs\.(\w+): is required$/.exec(message);
    if (missing)
      message += ` (send it in the body's "inputs" object, or as metadata.${missing[1]} — the last user message fills only the app's main text input)`;
    if (error.code === 'not_found' && (param === null || param === 'model')) {
      code = 'model_not_found';
      param = 'model';
    }
  } else if (error.validation) {
    const first = error.validation[0];
    const described = first ? describeSchemaError(first) : { path: [], message: error.message };
    param = described.path.length > 0 ? described.path.join('.') : (error.validationContext ?? 'body');
    status = 400;
    message = `${param}: ${described.message}`;
    code = 'invalid_param';
  } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    // Malformed JSON, empty bodies and the like, caught by Fastify before our code: our codes, never
    // Fastify's internal ones (FST_ERR_…), which tell a caller nothing they can act on (issue 24).
    status = error.statusCode;
    message = error.message;
    code = FRAMEWORK_CODES[status] ?? 'invalid_param';
    if (status === 400) param = 'body';
  } else {
    status = 500;
    message = 'Internal server error';
    code = 'internal_error';
  }
  const type = TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { status, body: { error: { message, type, code, param } } };
}

const DESCRIPTION = `OpenAI's Chat Completions for any app this key may call: \`model\` is the app's slug (\`GET /v1/models\` lists them).
Point an OpenAI client at \`{PUBLIC_URL}/v1\` with a Tollbooth API key as its API key.

How the request reaches the app (docs/openai-compatible-api.md):
- Chat apps (prompt apps in chat mode, Dify chat apps): the last message must be the user's; it is the chat query. For prompt apps the earlier
  messages (system, user, assistant) are the conversation, sent to the model after the app's own system prompt; nothing is stored. Dify chat apps
  keep their conversation themselves: only the last message is sent, and the answer's \`conversation_id\` continues it when sent back.
- Completion and workflow apps: the last user message fills the app's text input (the one named \`query\`, else its first required text input,
  else its first text input, as the app's public page says) unless \`inputs\` sets it; \`inputs\` (the app's input variables, as in the Dify endpoints) carries the rest. Earlier messages are not sent.
- The app's creator sets the model and its parameters: temperature, max_tokens and the like are accepted and ignored.

Charging, idempotency (\`Idempotency-Key\`), rate limits, the price cap (\`X-Max-Price-Cents\`) and analytics are those of the Dify endpoints:
a call to another creator's app costs its price, charged only when it succeeds; a stream is charged once any part of the answer was sent.
\`stream: true\` answers \`text/event-stream\`: \`data: <chat.completion.chunk>\` events (the first carries the role, the last a
finish_reason "stop"), with \`stream_options.include_usage\` one more chunk with empty choices and the usage, then \`data: [DONE]\`;
a failure after the stream started is a \`data: {"error": {...}}\` event. Comments (\`: ping\`) keep idle streams open.
Errors are OpenAI's envelope \`{error: {message, type, code, param}}\`: 400 invalid_param (param names the field), 401 unauthorized,
402 insufficient_credits / key_limit_exceeded / price_above_limit, 403 app_unavailable, 404 model_not_found, 409 conflict (Idempotency-Key reused
with another body), 429 rate_limited with Retry-After, 502 provider_error, 504 provider_timeout.`;

/** In the body an Idempotency-Key covers: the same key cannot replay a chat completion as a response. */
const RESPONSES_MARK = { openai_api: 'responses' };

const RESPONSES_DESCRIPTION = `OpenAI's Responses API for any app this key may call, on the same paid call as \`/v1/chat/completions\` (charging, idempotency, rate limits, price cap).
\`input\` (text, or message / function_call / function_call_output items) and \`instructions\` become the messages, \`text.format\` the response_format and
function \`tools\` the tools, mapped to the app as Chat Completions requests are (docs/openai-compatible-api.md). Chat apps keep their conversation:
\`previous_response_id\` continues it (\`store: false\` keeps none). \`stream: true\` answers OpenAI's typed events (response.created, response.output_item.added,
response.output_text.delta, response.function_call_arguments.delta, … response.completed; response.failed after an error event).
\`usage.cost\` and the \`X-Price-Cents\` header give the price charged.`;

export const openaiRoutes: FastifyPluginAsyncTypebox<{ openai: OpenAIService; gateway: GatewayService }> = async (app, { openai, gateway }) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, body } = toOpenAIError(refusedMultipartBody(error, request.headers['content-type']) ?? error);
    if (status >= 500) reply.log.error({ err: error }, 'OpenAI-compatible call failed');
    if (status === 401) reply.header('WWW-Authenticate', bearerChallenge(request.headers.authorization));
    return reply.status(status).send(body);
  });

  const requireCaller = async (request: FastifyRequest, reply: FastifyReply) => {
    await app.authenticateCaller(request, reply);
    if (!request.auth) throw new AppError('unauthorized', 'Authentication credentials were not provided: send Authorization: Bearer <API key>');
    return request.auth;
  };

  // The model list can be long: compressed like the management API (web-app/compression.ts), in a
  // scope of its own so the paid calls' answers are not.
  await app.register(async (plain) => {
    await registerCompression(plain);
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.get(
      '/v1/models',
      keyed({
        summary: 'List the apps this key can call (OpenAI-compatible)',
        description: "Your own apps (any status) and other creators' live public apps, with their price per call. `id` is the `model` to send.",
        response: { 200: OpenAIModelList, 401: OpenAIError },
      }),
      async (request, reply) => ({ object: 'list' as const, data: await openai.listModels(await requireCaller(request, reply)) }),
    );

    scope.get(
      '/v1/models/:model',
      keyed({
        summary: 'Read one app as a model (OpenAI-compatible)',
        params: OpenAIModelParams,
        response: { 200: OpenAIModel, 401: OpenAIError, 404: OpenAIError },
      }),
      async (request, reply) => openai.readModel(request.params.model, await requireCaller(request, reply)),
    );
  });

  app.get(
    '/v1/key',
    keyed({
      summary: 'Read the calling API key: its limits, spend this month and the credit left',
      description:
        'With the `tb_` key alone (as OpenRouter’s GET /api/v1/key): its name, monthly spend limit, per-call price cap, what it spent this UTC month and the credit left on its account.',
      response: { 200: OpenAIKeyInfo, 400: OpenAIError, 401: OpenAIError },
    }),
    async (request, reply) => openai.describeKey(await requireCaller(request, reply)),
  );

  app.get(
    '/v1/generation',
    keyed({
      summary: 'Read what one of your calls was charged',
      description:
        'By the answer’s id (`chatcmpl-…`, `resp_…`, or a Dify message id), as OpenRouter’s generation lookup: the price charged, tokens and latency.',
      querystring: GenerationQuery,
      response: { 200: GenerationInfo, 401: OpenAIError, 404: OpenAIError },
    }),
    async (request, reply) => openai.readCharge(request.query.id, await requireCaller(request, reply)),
  );

  app.post(
    '/v1/chat/completions',
    paidCallRoute({
      tags: ['openai'],
      summary: 'Call an app with OpenAI Chat Completions',
      description: DESCRIPTION,
      security: [{ bearer: [] }],
      headers: CallHeaders,
      body: ChatCompletionRequest,
      response: { 200: ChatCompletion, ...errors },
    }),
    async (request, reply) => {
      const body = request.body;
      const startedAt = performance.now();
      // As on the Dify endpoints: a refused key is reported (and recorded) once the app is known.
      const payer = await identifyPayer(request, reply, app.authenticateCaller, gateway);
      const plan = await openai.plan(body, payer.auth ?? null, () => hopHeaderOf(request));
      const preparation = await preparePaidCall(gateway, request, reply, plan.slug, plan.mode, payer, plan.body, startedAt, 'openai');
      const stream = body.stream === true;
      const includeUsage = body.stream_options?.include_usage === true;
      if (preparation.kind === 'replay') {
        const answer = preparation.body;
        replayHeaders(reply, answer);
        // Only answers are stored for replays (gateway/service.ts's finish): the status is 200's.
        if (!stream) return reply.status(preparation.status as 200).send(toChatCompletion(answer, body.model, plan.chatWithConversationId));
        const write = openStream(reply);
        const chunks = chunkWriter(answer.id, body.model, includeUsage, plan.chatWithConversationId ? answer.conversation_id || null : null);
        write(chunks.role());
        write(chunks.delta(answer.answer));
        write(chunks.finish(answer));
        if (includeUsage) write(chunks.usage(answer));
        reply.raw.end('data: [DONE]\n\n');
        return reply;
      }
      const call = preparation.call;
      const capture = withConversation(call, plan);
      const connection = openCall(reply, call);
      if (!stream) {
        try {
          return toChatCompletion(await gateway.complete(call, connection.signal), body.model, plan.chatWithConversationId, capture.calls);
        } finally {
          connection.release();
        }
      }
      await streamCall(reply, call, capture, connection, body.model, includeUsage, plan.chatWithConversationId);
      return reply;
    },
  );

  app.post(
    '/v1/responses',
    paidCallRoute({
      tags: ['openai'],
      summary: "Call an app with OpenAI's Responses API",
      description: RESPONSES_DESCRIPTION,
      security: [{ bearer: [] }],
      headers: CallHeaders,
      body: ResponsesRequest,
      response: { 200: ResponseObject, ...errors },
    }),
    async (request, reply) => {
      const body = request.body;
      const startedAt = performance.now();
      const payer = await identifyPayer(request, reply, app.authenticateCaller, gateway);
      const chatRequest = toChatRequest(body);
      const previous = body.previous_response_id ? parseResponseId(body.previous_response_id) : null;
      if (body.previous_response_id && !previous?.conversationId) {
        throw invalidParam('previous_response_id', 'is not a response of a chat app (only chat apps keep a conversation)');
      }
      const plan = await openai.plan(chatRequest, payer.auth ?? null, () => hopHeaderOf(request));
      if (previous?.conversationId) {
        if (plan.mode !== 'chat') throw invalidParam('previous_response_id', 'only chat apps keep a conversation');
        // Object.assign, not a spread followed by a key: one hidden class for every body (decision 0058).
        plan.body = Object.assign({}, plan.body, { conversation_id: previous.conversationId });
      }
      const preparation = await preparePaidCall(
        gateway,
        request,
        reply,
        plan.slug,
        plan.mode,
        payer,
        Object.assign({}, plan.body, RESPONSES_MARK),
        startedAt,
        'responses',
      );
      const stream = body.stream === true;
      const contextOf = (answerId: string, conversationId: string | null, createdAt: number) => ({
        request: body,
        id: responseId(answerId, plan.mode === 'chat' ? conversationId : null),
        createdAt,
        previousResponseId: body.previous_response_id ?? null,
      });
      if (preparation.kind === 'replay') {
        const answer = preparation.body;
        replayHeaders(reply, answer);
        const context = contextOf(answer.id, answer.conversation_id || null, answer.created_at);
        if (!stream)
          return reply.status(preparation.status as 200).send(responseObject(context, 'completed', outputItems(answer.id, answer.answer, []), answer));
        const events = responseEventWriter(context, openResponseEvents(reply));
        events.start();
        events.text(answer.answer);
        events.complete(answer);
        reply.raw.end();
        return reply;
      }
      const call = preparation.call;
      const capture = withConversation(call, plan, body.store !== false);
      const connection = openCall(reply, call);
      if (!stream) {
        try {
          const answer = await gateway.complete(call, connection.signal);
          const context = contextOf(answer.id, answer.conversation_id || null, answer.created_at);
          return responseObject(context, 'completed', outputItems(answer.id, answer.answer, capture.calls), answer);
        } finally {
          connection.release();
        }
      }
      const events = responseEventWriter(contextOf(call.messageId, call.conversationId, Math.floor(Date.now() / 1000)), openResponseEvents(reply));
      const pings = startPings(reply, ': ping\n\n');
      try {
        events.start();
        capture.onDelta = (delta) => events.toolCall(delta, capture.calls[delta.index]!);
        events.complete(await gateway.stream(call, connection.signal, (text) => events.text(text)));
      } catch (error) {
        if (!connection.signal.aborted) events.fail(toOpenAIError(streamFailure(reply, error)).body.error);
      } finally {
        endStream(reply, connection, pings);
      }
      return reply;
    },
  );

  /** A Responses stream: typed events, each as `event: <type>` and its JSON data. */
  const openResponseEvents = (reply: FastifyReply) => {
    const write = openEventStream(reply);
    return (event: Record<string, unknown>) => write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  };

  const openStream = (reply: FastifyReply) => {
    const write = openEventStream(reply);
    return (chunk: ChatCompletionChunk | OpenAIError) => write(`data: ${JSON.stringify(chunk)}\n\n`);
  };

  const streamCall = async (
    reply: FastifyReply,
    call: PreparedCall,
    capture: ToolCallCapture,
    connection: CallerConnection,
    model: string,
    includeUsage: boolean,
    withConversationId: boolean,
  ) => {
    const write = openStream(reply);
    const chunks = chunkWriter(call.taskId, model, includeUsage, withConversationId ? call.conversationId : null);
    capture.onDelta = (delta) => write(chunks.toolCall(delta));
    const pings = startPings(reply, ': ping\n\n');
    let answer: CallAnswer | null = null;
    try {
      // The role chunk is not part of the answer: a caller leaving after it is not charged.
      write(chunks.role());
      answer = await gateway.stream(call, connection.signal, (text) => write(chunks.delta(text)));
      write(chunks.finish(answer, capture.calls.length > 0));
      if (includeUsage) write(chunks.usage(answer));
      reply.raw.write('data: [DONE]\n\n');
    } catch (error) {
      if (!connection.signal.aborted) write(toOpenAIError(streamFailure(reply, error)).body);
    } finally {
      endStream(reply, connection, pings);
    }
  };
};
