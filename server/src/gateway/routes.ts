// Paid call endpoints, Dify-compatible: blocking JSON answers or Server-Sent Events.

import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CallAnswer, CallHeaders, CallRequest, ErrorResponse, InvokeRequest, SlugParams, StreamEvent, UploadedFile } from '@tollbooth/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../auth/plugin.ts';
import { refuseUnacceptable } from '../http/accept.ts';
import type { CallerConnection } from '../http/caller-connection.ts';
import { openEventStream } from '../http/event-stream.ts';
import { PAID_CALL_ROUTE } from '../http/settled-reads.ts';
import { toCallerEvent } from '../workflows/service.ts';
import { type RunningTasks, stoppedMessageEnd } from './dify-api/tasks.ts';
import { type Authenticate, endStream, identifyPayer, openCall, preparePaidCall, replayHeaders, startPings, streamFailure } from './door-service.ts';
import { ALLOWED_UPLOADS, MAX_UPLOAD_BYTES, malformedMultipart, refuseUnreadableMultipartType } from './files.ts';
import type { CallMode, GatewayService, PreparedCall } from './service.ts';

const callErrors = {
  400: ErrorResponse,
  401: ErrorResponse,
  402: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
  413: ErrorResponse,
  429: ErrorResponse,
  502: ErrorResponse,
  504: ErrorResponse,
};

const CALL_DESCRIPTION = `Calls the application. Authenticate with \`Authorization: Bearer <API key>\` (or an access token).
A call to another user's live public or embed app costs its price_cents, charged only when the call succeeds;
the owner's own calls are free. With \`response_mode: "streaming"\` the answer is Server-Sent Events:
\`message\` chunks, then \`message_end\` with usage, or \`error\`; an \`event: ping\` every 10 s. A workflow app's stream also carries
Dify's other events (agent_thought, message_file, message_replace, tts_message, workflow_started, node_started, node_finished,
workflow_finished) in order, with this call's task_id, message_id and conversation_id in place of Dify's.
Streaming charge rule: a stream is charged once the caller has been sent any part of the answer (a text chunk, or an event that
carries answer content: node outputs, files, a moderation replacement, speech, agent thoughts), whether or not it stays
to the end; a call cut before that is free and its upstream call is aborted; a provider failure at any point is free.
An app with an output schema sends its answer only once it passed the schema, as one \`message\` chunk of the validated JSON.
Prices: a price increase reaches callers only after a notice period (the app shows the upcoming price and its date);
decreases apply at once. Cap what a call may cost with the API key's max_price_cents or an \`X-Max-Price-Cents\` header:
a call above the cap answers 402 price_above_limit and is not charged.
Text that cannot be stored (NUL characters, unpaired UTF-16 surrogates) is refused with 400 invalid_param naming the field.
Send an \`Idempotency-Key\` header to make retries safe: the same key and body within 24 h returns the stored answer
without a second charge; the same key with a different body is a 409.
Errors: invalid_param 400, unauthorized 401, insufficient_credits / key_limit_exceeded / price_above_limit 402, app_unavailable 403,
not_found 404, rate_limited 429 (with Retry-After), provider_error 502, provider_timeout 504.`;

/** A call answers JSON (blocking) or Server-Sent Events (response_mode "streaming"); both documented. */
const callAnswerContent = {
  description:
    'Blocking: the answer. Streaming: text/event-stream, each event a `data: {json}` line: `message` chunks (one message_id and conversation_id throughout; the task_id is also in the X-Task-Id header), then `message_end` with usage and price, or `error`; `event: ping` every 10 s.',
  content: {
    'application/json': { schema: CallAnswer },
    'text/event-stream': { schema: StreamEvent },
  },
};

/** The embed widget's caller: a publishable key checked against its frame, apps, visitor and caps (embed/service.ts). */
export type AuthenticateEmbedCaller = (request: FastifyRequest, slug: string, visitor: unknown) => Promise<AuthContext>;

export const gatewayRoutes: FastifyPluginAsyncTypebox<{
  gateway: GatewayService;
  tasks?: RunningTasks;
  authenticateEmbedCaller?: AuthenticateEmbedCaller;
}> = async (app, { gateway, tasks, authenticateEmbedCaller }) => {
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });

  // Dify's path for the same upload (multipart "file" and "user"), so Dify clients work unmodified.
  for (const uploadPath of ['/api/app/:slug/file-upload/', '/api/app/:slug/files/upload'] as const)
    app.post(
      uploadPath,
      {
        schema: {
          tags: ['gateway'],
          summary: uploadPath.endsWith('files/upload') ? "Upload a file (Dify's files/upload)" : 'Upload a file to reference in a call',
          description: `multipart/form-data with a "file" field, at most 15 MB (413 above), of type ${Object.keys(ALLOWED_UPLOADS).join(', ')} (415 otherwise). Reference it in a call as files: [{type: "image", transfer_method: "local_file", upload_file_id}]; images go to vision-capable models.`,
          security: [{ bearer: [] }],
          consumes: ['multipart/form-data'],
          params: SlugParams,
          response: {
            201: UploadedFile,
            400: ErrorResponse,
            401: ErrorResponse,
            403: ErrorResponse,
            404: ErrorResponse,
            413: ErrorResponse,
            415: ErrorResponse,
          },
        },
        onRequest: refuseUnreadableMultipartType,
        preHandler: app.authenticateCaller,
      },
      async (request, reply) => {
        const uploaded = await gateway.upload(request.params.slug, request.auth, {
          isMultipart: request.isMultipart(),
          file: () =>
            request.file().catch((error: unknown) => {
              throw malformedMultipart(error);
            }),
        });
        return reply.status(201).send(uploaded);
      },
    );

  /** Runs one call for any of the call routes, paid by the payer its route authenticates. */
  const handle = async (request: FastifyRequest, reply: FastifyReply, slug: string, mode: CallMode, body: CallRequest, authenticate: Authenticate) => {
    const startedAt = performance.now();
    const payer = await identifyPayer(request, reply, authenticate);
    const preparation = await preparePaidCall(gateway, request, reply, slug, mode, payer, body, startedAt);
    const streaming = body.response_mode === 'streaming';
    if (preparation.kind === 'replay') {
      replayHeaders(reply, preparation.body);
      if (!streaming) return reply.status(preparation.status).send(preparation.body);
      return replayAsStream(reply, preparation.body);
    }
    const call = preparation.call;
    const connection = openCall(reply, call);
    if (!streaming) {
      try {
        return await gateway.complete(call, connection.signal);
      } finally {
        connection.release();
      }
    }
    // Dify's stop endpoint finds the stream by its task id (dify-api/tasks.ts).
    const task = tasks?.track(call.taskId, call.auth.user.id, call.app.id, connection.signal);
    // The task id before the first event, so a caller can stop the stream while the model is still silent.
    reply.header('X-Task-Id', call.taskId);
    return streamCall(reply, call, connection, task);
  };

  const openStream = (reply: FastifyReply) => {
    const write = openEventStream(reply);
    return (event: StreamEvent) => write(`data: ${JSON.stringify(event)}\n\n`);
  };

  const messageEnd = (answer: CallAnswer): StreamEvent => ({
    event: 'message_end',
    task_id: answer.task_id,
    id: answer.id,
    message_id: answer.message_id,
    conversation_id: answer.conversation_id,
    // Object.assign, not a spread followed by a key: one hidden class for every event (decision 0058).
    metadata: Object.assign({}, answer.metadata, { retriever_resources: [] }),
  });

  const replayAsStream = (reply: FastifyReply, answer: CallAnswer) => {
    const send = openStream(reply);
    send({
      event: 'message',
      task_id: answer.task_id,
      message_id: answer.message_id,
      conversation_id: answer.conversation_id,
      answer: answer.answer,
      created_at: answer.created_at,
    });
    send(messageEnd(answer));
    reply.raw.end();
  };

  const streamCall = async (reply: FastifyReply, call: PreparedCall, connection: CallerConnection, task?: { stopped: boolean; done(): void }) => {
    const send = openStream(reply);
    const pings = startPings(reply, 'event: ping\n\n');
    const createdAt = Math.floor(Date.now() / 1000);
    // Workflow providers' other events (agent thoughts, workflow nodes, files…) pass through with our ids.
    const sendEvent = (event: Record<string, unknown>) =>
      reply.raw.write(
        `data: ${JSON.stringify(toCallerEvent(event, { taskId: call.taskId, messageId: call.messageId, conversationId: call.conversationId ?? '' }))}\n\n`,
      );
    try {
      const answer = await gateway.stream(
        call,
        connection.signal,
        (text) => {
          send({
            event: 'message',
            task_id: call.taskId,
            message_id: call.messageId,
            conversation_id: call.conversationId ?? '',
            answer: text,
            created_at: createdAt,
          });
        },
        sendEvent,
      );
      send(messageEnd(answer));
    } catch (error) {
      if (task?.stopped) send(stoppedMessageEnd(call));
      else if (!connection.signal.aborted) {
        const failure = streamFailure(reply, error);
        send({ event: 'error', task_id: call.taskId, message_id: call.messageId, status: failure.status, code: failure.code, message: failure.message });
      }
    } finally {
      task?.done();
      endStream(reply, connection, pings);
    }
  };

  // The embed widget's calls: the same call, paid by a publishable key that only works from its frame.
  const authenticateWidget: Authenticate = async (request) => {
    request.auth = await authenticateEmbedCaller!(request, (request.params as { slug: string }).slug, (request.body as CallRequest | undefined)?.user);
  };
  if (authenticateEmbedCaller) {
    for (const mode of ['completion', 'chat'] as const) {
      app.post(
        `/api/embed/:slug/${mode}-messages`,
        {
          schema: {
            tags: ['embed'],
            summary: mode === 'completion' ? "The embed widget's completion call" : "The embed widget's chat message",
            description:
              'Called by the embed widget only (`/embed/{slug}`): `Authorization: Bearer <publishable key>`, the frame token in X-Embed-Token, the ' +
              'visitor id in `user`, and the browser Origin of the widget frame itself. The body and answers are those of the app call. ' +
              'Refused, and not charged: another origin or none (403 forbidden), a revoked key (401), an app the key may not call (403), a visitor over ' +
              "the key's per-minute limit (429), the daily or monthly spend cap reached (402 key_limit_exceeded).",
            security: [{ bearer: [] }],
            params: SlugParams,
            headers: CallHeaders,
            body: CallRequest,
            response: { 200: callAnswerContent, ...callErrors },
          },
          config: PAID_CALL_ROUTE,
          onRequest: refuseUnacceptable,
        },
        async (request, reply) => handle(request, reply, request.params.slug, mode, request.body, authenticateWidget),
      );
    }
  }

  for (const mode of ['completion', 'chat'] as const) {
    app.post(
      `/api/app/:slug/${mode}-messages`,
      {
        schema: {
          tags: ['gateway'],
          summary: mode === 'completion' ? 'Run a completion (Dify-compatible)' : 'Send a chat message (Dify-compatible)',
          description: CALL_DESCRIPTION,
          security: [{ bearer: [] }],
          params: SlugParams,
          headers: CallHeaders,
          body: CallRequest,
          response: { 200: callAnswerContent, ...callErrors },
        },
        config: PAID_CALL_ROUTE,
        onRequest: refuseUnacceptable,
      },
      async (request, reply) => handle(request, reply, request.params.slug, mode, request.body, app.authenticateCaller),
    );
  }

  app.post(
    '/v1/invoke/:slug',
    {
      schema: {
        tags: ['gateway'],
        summary: 'Invoke a prompt with a JSON body of its input fields',
        description: `The body is the inputs object itself, e.g. {"topic": "owls"}; the answer is the completion-messages answer.\n\n${CALL_DESCRIPTION}`,
        security: [{ bearer: [] }],
        params: SlugParams,
        headers: CallHeaders,
        body: InvokeRequest,
        response: { 200: CallAnswer, ...callErrors },
      },
      config: PAID_CALL_ROUTE,
      onRequest: refuseUnacceptable,
    },
    async (request, reply) =>
      handle(request, reply, request.params.slug, 'completion', { inputs: request.body, response_mode: 'blocking' }, app.authenticateCaller),
  );
};
