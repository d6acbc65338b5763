// Dify's completion-messages and chat-messages answer, for every door that speaks it: Dify's own
// routes and /v1/invoke (routes.ts), and the embed widget's calls (embed/routes.ts), which differ only
// in who pays. Blocking, the gateway's answer as JSON (it is Dify's message); streaming, Server-Sent
// Events: `message` chunks, then `message_end` with usage, or `error`; `event: ping` every 10 s; a
// workflow provider's other events pass through with this call's ids. A stream is tracked by its
// task id, so Dify's stop endpoint can end it (tasks.ts).
//
// Public (a "-service" module) so the embed widget's door answers the same way.
import { CallAnswer, CallHeaders, CallRequest, ErrorResponse, SlugParams, StreamEvent } from '@tollbooth/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Authenticate, endStream, identifyPayer, openCall, preparePaidCall, replayHeaders, startPings, streamFailure } from '../gateway/door-service.ts';
import type { CallMode, GatewayService, PreparedCall } from '../gateway/service.ts';
import type { CallerConnection } from '../http/caller-connection.ts';
import { openEventStream } from '../http/event-stream.ts';
import { toCallerEvent } from '../workflows/service.ts';
import { type RunningTasks, stoppedMessageEnd, type TaskHandle } from './tasks.ts';

export type { RunningTasks } from './tasks.ts';

/** The errors a call route documents. */
export const callErrors = {
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

/** A call answers JSON (blocking) or Server-Sent Events (response_mode "streaming"); both documented. */
const callAnswerContent = {
  description:
    'Blocking: the answer. Streaming: text/event-stream, each event a `data: {json}` line: `message` chunks (one message_id and conversation_id throughout; the task_id is also in the X-Task-Id header), then `message_end` with usage and price, or `error`; `event: ping` every 10 s.',
  content: {
    'application/json': { schema: CallAnswer },
    'text/event-stream': { schema: StreamEvent },
  },
};

/** The schema of a route that takes a Dify message call: a CallRequest body, answered as above. */
export function messageCallSchema(tag: string, summary: string, description: string) {
  return {
    tags: [tag],
    summary,
    description,
    security: [{ bearer: [] }],
    params: SlugParams,
    headers: CallHeaders,
    body: CallRequest,
    response: { 200: callAnswerContent, ...callErrors },
  };
}

/** Answers Dify message calls on the gateway; `tasks` holds the running streams, for Dify's stop endpoint. */
export function createMessageDoor(gateway: GatewayService, tasks: RunningTasks, path: 'dify' | 'embed' = 'dify') {
  /** Runs one call, paid by the payer the route's `authenticate` finds. */
  return async (request: FastifyRequest, reply: FastifyReply, slug: string, mode: CallMode, body: CallRequest, authenticate: Authenticate) => {
    const startedAt = performance.now();
    const payer = await identifyPayer(request, reply, authenticate, gateway);
    const preparation = await preparePaidCall(gateway, request, reply, slug, mode, payer, body, startedAt, path);
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
    // Dify's stop endpoint finds the stream by its task id (tasks.ts).
    const task = tasks.track(call.taskId, call.auth.user.id, call.app.id, connection.signal);
    // The task id before the first event, so a caller can stop the stream while the model is still silent.
    reply.header('X-Task-Id', call.taskId);
    return streamCall(gateway, reply, call, connection, task);
  };
}

export type MessageDoor = ReturnType<typeof createMessageDoor>;

function openStream(reply: FastifyReply) {
  const write = openEventStream(reply);
  return (event: StreamEvent) => write(`data: ${JSON.stringify(event)}\n\n`);
}

function messageEnd(answer: CallAnswer): StreamEvent {
  return {
    event: 'message_end',
    task_id: answer.task_id,
    id: answer.id,
    message_id: answer.message_id,
    conversation_id: answer.conversation_id,
    // Object.assign, not a spread followed by a key: one hidden class for every event (decision 0058).
    metadata: Object.assign({}, answer.metadata, { retriever_resources: [] }),
  };
}

function replayAsStream(reply: FastifyReply, answer: CallAnswer) {
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
}

async function streamCall(gateway: GatewayService, reply: FastifyReply, call: PreparedCall, connection: CallerConnection, task: TaskHandle) {
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
    if (task.stopped) send(stoppedMessageEnd(call));
    else if (!connection.signal.aborted) {
      const failure = streamFailure(reply, error);
      send({ event: 'error', task_id: call.taskId, message_id: call.messageId, status: failure.status, code: failure.code, message: failure.message });
    }
  } finally {
    task.done();
    endStream(reply, connection, pings);
  }
}
