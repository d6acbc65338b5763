// Dify's caller protocol, per app at /api/app/{slug} (the base URL a Dify client is given). The call
// itself: completion-messages and chat-messages (messages-service.ts answers them, as it answers the
// embed widget's), and /v1/invoke, the same completion with the inputs as the whole body. Around it,
// Dify's Service API: parameters, info, meta, site; conversations, messages, feedbacks, suggested
// questions; stopping a stream; workflow runs. See docs/decisions/0009.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CallAnswer,
  CallHeaders,
  DifyAppInfo,
  DifyAppMeta,
  DifyAppSite,
  DifyConversation,
  DifyConversationList,
  DifyConversationParams,
  DifyConversationsQuery,
  DifyFeedbackRequest,
  DifyMessageList,
  DifyMessageParams,
  DifyMessagesQuery,
  DifyParameters,
  DifyRenameRequest,
  DifyResult,
  DifySuggested,
  DifyTaskParams,
  DifyUserQuery,
  DifyWorkflowLogs,
  DifyWorkflowLogsQuery,
  DifyWorkflowRunAnswer,
  DifyWorkflowRunDetail,
  DifyWorkflowRunParams,
  DifyWorkflowRunRequest,
  ErrorResponse,
  InvokeRequest,
  SlugParams,
} from '@tollbooth/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { paidCallRoute } from '../gateway/door-service.ts';
import type { GatewayService } from '../gateway/service.ts';
import { keyedRoutes } from '../http/route-schema.ts';
import { AppError } from '../platform/errors.ts';
import { callErrors, createMessageDoor, messageCallSchema } from './messages-service.ts';
import type { DifyApiService } from './service.ts';
import type { RunningTasks } from './tasks.ts';
import { runWorkflow } from './workflow-run.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };
const TAG = 'dify';
/** The options of a route a caller's key calls: tagged dify, needing a bearer token. */
const keyed = keyedRoutes([TAG]);
const BASE = 'Base URL for Dify clients: `{PUBLIC_URL}/api/app/{slug}` (what a Dify SDK calls its API base).';
const PUBLIC_READ = `${BASE} Readable without a key for a live public or embed app (so a public page can show its inputs); with a key or token, as the caller may call the app (owners: any status).`;
const OWN_DATA = `${BASE} Needs \`Authorization: Bearer <API key>\`; only the caller's own conversations and messages exist (another caller's id is 404). \`user\` is accepted as Dify clients send it.`;

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

export const difyRoutes: FastifyPluginAsyncTypebox<{ difyApi: DifyApiService; gateway: GatewayService; tasks: RunningTasks }> = async (
  app,
  { difyApi, gateway, tasks },
) => {
  const answerMessage = createMessageDoor(gateway, tasks);

  for (const mode of ['completion', 'chat'] as const) {
    app.post(
      `/api/app/:slug/${mode}-messages`,
      paidCallRoute(
        messageCallSchema('gateway', mode === 'completion' ? 'Run a completion (Dify-compatible)' : 'Send a chat message (Dify-compatible)', CALL_DESCRIPTION),
      ),
      async (request, reply) => answerMessage(request, reply, request.params.slug, mode, request.body, app.authenticateCaller),
    );
  }

  app.post(
    '/v1/invoke/:slug',
    paidCallRoute({
      tags: ['gateway'],
      summary: 'Invoke a prompt with a JSON body of its input fields',
      description: `The body is the inputs object itself, e.g. {"topic": "owls"}; the answer is the completion-messages answer.\n\n${CALL_DESCRIPTION}`,
      security: [{ bearer: [] }],
      params: SlugParams,
      headers: CallHeaders,
      body: InvokeRequest,
      response: { 200: CallAnswer, ...callErrors },
    }),
    async (request, reply) =>
      answerMessage(request, reply, request.params.slug, 'completion', { inputs: request.body, response_mode: 'blocking' }, app.authenticateCaller),
  );

  const caller = async (request: FastifyRequest, reply: FastifyReply) => {
    await app.authenticateCaller(request, reply);
    return request.auth;
  };

  // What a Dify client reads about an app: its input form, its name and mode, tool icons, its web settings.
  for (const [name, summary, description, querystring, answer, read] of [
    [
      'parameters',
      "The app's input form and upload settings (Dify's GET /parameters)",
      `user_input_form has one entry per input of the app's input schema (text-input, paragraph, select, number, checkbox, json_object with label, variable, required, default, options, max_length); a workflow app answers its provider's own form. ${PUBLIC_READ}`,
      DifyUserQuery,
      DifyParameters,
      difyApi.parameters,
    ],
    ['info', "The app's name, description, mode and author (Dify's GET /info)", PUBLIC_READ, DifyUserQuery, DifyAppInfo, difyApi.info],
    ['meta', "Tool icons (Dify's GET /meta; none for Tollbooth apps)", PUBLIC_READ, null, DifyAppMeta, difyApi.meta],
    ['site', "The app's web settings (Dify's GET /site)", PUBLIC_READ, null, DifyAppSite, difyApi.site],
  ] as const) {
    app.get(
      `/api/app/:slug/${name}`,
      {
        schema: {
          tags: [TAG],
          summary,
          description,
          security: [{}, { bearer: [] }],
          params: SlugParams,
          ...(querystring ? { querystring } : {}),
          response: { 200: answer, ...errors },
        },
      },
      async (request, reply) => read(request.params.slug, await caller(request, reply)),
    );
  }

  app.get(
    '/api/app/:slug/conversations',
    keyed({
      summary: "The caller's conversations with a chat app, most recently active first",
      description: `Paged by last_id (the last conversation of the previous page; first_id is taken as last_id, as dify-client sends it) and limit (default 20, at most 100); has_more says whether another page follows. With user, only that end user's conversations. ${OWN_DATA}`,
      params: SlugParams,
      querystring: DifyConversationsQuery,
      response: { 200: DifyConversationList, ...errors },
    }),
    async (request, reply) => difyApi.listConversations(request.params.slug, await caller(request, reply), request.query),
  );

  app.post(
    '/api/app/:slug/conversations/:conversation_id/name',
    keyed({
      summary: 'Rename a conversation',
      description: `name, or auto_generate: true to name it after its first query. Answers the conversation. ${OWN_DATA}`,
      params: DifyConversationParams,
      body: DifyRenameRequest,
      response: { 200: DifyConversation, ...errors },
    }),
    async (request, reply) => difyApi.renameConversation(request.params.slug, await caller(request, reply), request.params.conversation_id, request.body),
  );

  app.delete(
    '/api/app/:slug/conversations/:conversation_id',
    keyed({
      summary: 'Delete a conversation and its messages',
      description: `Answers 204. Its calls stay in the app's analytics. ${OWN_DATA}`,
      params: DifyConversationParams,
      response: { 204: { type: 'null', description: 'Deleted' }, ...errors },
    }),
    async (request, reply) => {
      await difyApi.deleteConversation(request.params.slug, await caller(request, reply), request.params.conversation_id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/app/:slug/messages',
    keyed({
      summary: "A conversation's messages, oldest first",
      description: `Each message is one answered turn: its id is the call's message_id, with the query, inputs, answer and feedback. Paged backwards: first_id is the oldest message of the page already read, limit (default 20) messages before it are answered; has_more says whether older ones exist. ${OWN_DATA}`,
      params: SlugParams,
      querystring: DifyMessagesQuery,
      response: { 200: DifyMessageList, ...errors },
    }),
    async (request, reply) => difyApi.listMessages(request.params.slug, await caller(request, reply), request.query),
  );

  app.post(
    '/api/app/:slug/messages/:message_id/feedbacks',
    keyed({
      summary: 'Rate an answer (like, dislike, or null to take the rating back)',
      description: `Any of the caller's successful calls to the app, chat or completion, by its message_id. ${OWN_DATA}`,
      params: DifyMessageParams,
      body: DifyFeedbackRequest,
      response: { 200: DifyResult, ...errors },
    }),
    async (request, reply) => difyApi.feedback(request.params.slug, await caller(request, reply), request.params.message_id, request.body),
  );

  app.get(
    '/api/app/:slug/messages/:message_id/suggested',
    keyed({
      summary: 'Suggested follow-up questions (always an empty list: Tollbooth apps do not suggest)',
      description: OWN_DATA,
      params: DifyMessageParams,
      querystring: DifyUserQuery,
      response: { 200: DifySuggested, ...errors },
    }),
    async (request, reply) => difyApi.suggested(request.params.slug, await caller(request, reply), request.params.message_id),
  );

  // Stopping a stream, by its task id: a chat or completion answer, or a workflow run.
  for (const [path, summary, description] of [
    ...(['completion', 'chat'] as const).map(
      (mode) =>
        [
          `${mode}-messages/:task_id/stop`,
          `Stop a streaming ${mode} answer`,
          `task_id is the stream's task_id. The upstream call is aborted and the stream ends with message_end. Charged by the streaming rule: free when stopped before any answer chunk was sent (message_end then shows total_price "0.0000000"), the app's price once any chunk was sent. Answers {"result": "success"} as Dify does, also for a task that already ended; another caller's task is not stopped. ${OWN_DATA}`,
        ] as const,
    ),
    [
      'workflows/tasks/:task_id/stop',
      'Stop a streaming workflow run',
      `task_id is the run's task_id. As the chat and completion stop: the upstream run is aborted and the stream ends with workflow_finished (status "stopped"); free when stopped before any output was sent. Answers {"result": "success"} as Dify does. ${OWN_DATA}`,
    ] as const,
  ]) {
    app.post(
      `/api/app/:slug/${path}`,
      keyed({
        summary,
        description,
        params: DifyTaskParams,
        response: { 200: DifyResult, ...errors },
      }),
      async (request, reply) => {
        const { app: target, auth } = await difyApi.callableApp(request.params.slug, await caller(request, reply));
        tasks.stop(request.params.task_id, auth.user.id, target.id);
        return { result: 'success' };
      },
    );
  }

  app.get(
    '/api/app/:slug/workflows/run/:workflow_run_id',
    keyed({
      summary: 'Read one of your workflow runs',
      description: `As Dify: its status (succeeded, failed, stopped), tokens and timing. Tollbooth keeps no run outputs: outputs is null. ${OWN_DATA}`,
      params: DifyWorkflowRunParams,
      response: { 200: DifyWorkflowRunDetail, ...errors },
    }),
    async (request, reply) => difyApi.workflowRun(request.params.slug, await caller(request, reply), request.params.workflow_run_id),
  );

  app.get(
    '/api/app/:slug/workflows/logs',
    keyed({
      summary: 'List your runs of the app',
      description: `Newest first, in Dify's page shape (page, limit, total, has_more); status filters, keyword matches your end-user id. ${OWN_DATA}`,
      params: SlugParams,
      querystring: DifyWorkflowLogsQuery,
      response: { 200: DifyWorkflowLogs, ...errors },
    }),
    async (request, reply) => difyApi.workflowLogs(request.params.slug, await caller(request, reply), request.query),
  );

  for (const [feature, label] of [
    ['audio-to-text', 'Speech to text'],
    ['text-to-audio', 'TTS'],
  ] as const) {
    app.post(
      `/api/app/:slug/${feature}`,
      keyed({
        summary: feature === 'audio-to-text' ? 'Speech to text (not offered)' : 'Text to speech (not offered)',
        description: `No Tollbooth app offers ${label.toLowerCase()}: answers Dify's own 400 for a disabled feature ("${label} is not enabled") once the app and the caller are known.`,
        params: SlugParams,
        response: {
          200: Type.Object({}, { additionalProperties: true, description: "Dify's answer when the feature is enabled: never, no Tollbooth app enables it" }),
          ...errors,
        },
      }),
      async (request, reply) => {
        await difyApi.callableApp(request.params.slug, await caller(request, reply));
        throw new AppError('invalid_param', `${label} is not enabled`);
      },
    );
  }

  app.post(
    '/api/app/:slug/workflows/run',
    paidCallRoute({
      tags: [TAG],
      summary: 'Run a workflow app (Dify workflow mode)',
      description: `For workflow apps whose Dify app is in workflow mode (others: 400 not_workflow_app). Charged exactly like completion-messages (the same path, price, idempotency, rate limit and streaming rule). Blocking answers the run with its outputs; streaming sends workflow_started, text_chunk events, then workflow_finished (or error). ${BASE}`,
      security: [{ bearer: [] }],
      params: SlugParams,
      headers: CallHeaders,
      body: DifyWorkflowRunRequest,
      response: {
        200: {
          description:
            'Blocking: the run. Streaming (response_mode "streaming"): text/event-stream of workflow_started, text_chunk, workflow_finished or error events.',
          content: {
            'application/json': { schema: DifyWorkflowRunAnswer },
            'text/event-stream': {
              schema: { type: 'string', description: 'data: {"event": "workflow_started" | "text_chunk" | "workflow_finished" | "error", ...}' },
            },
          },
        },
        ...errors,
        402: ErrorResponse,
        409: ErrorResponse,
        429: ErrorResponse,
        502: ErrorResponse,
        504: ErrorResponse,
      },
    }),
    async (request, reply) =>
      runWorkflow({ request, reply, gateway, difyApi, tasks, body: request.body, slug: request.params.slug, authenticate: () => caller(request, reply) }),
  );
};
