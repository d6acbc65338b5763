// POST /api/app/{slug}/workflows/run: a Dify workflow-mode app run through the same paid call as
// completion-messages (price, idempotency, rate limit, streaming rule), answered in Dify's
// workflow format. The run's outputs come back as the provider reported them when they are a
// JSON object (several outputs), else as {"text": answer} (one text output).

import type { CallAnswer, CallRequest } from '@tollbooth/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../auth/plugin.ts';
import { endStream, openCall, preparePaidCall, replayHeaders, startPings, streamFailure, traceAuthenticate } from '../gateway/door-service.ts';
import type { GatewayService } from '../gateway/service.ts';
import { openEventStream } from '../http/event-stream.ts';
import { AppError } from '../platform/errors.ts';
import type { DifyApiService } from './service.ts';
import type { RunningTasks } from './tasks.ts';

function outputsOf(answer: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(answer) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the app's one text output.
  }
  return { text: answer };
}

function runAnswer(answer: CallAnswer, workflowId: string, startedAt: number) {
  const usage = answer.metadata.usage;
  return {
    workflow_run_id: answer.message_id,
    task_id: answer.task_id,
    data: {
      id: answer.message_id,
      workflow_id: workflowId,
      status: 'succeeded',
      outputs: outputsOf(answer.answer),
      error: null,
      elapsed_time: usage.latency,
      total_tokens: usage.total_tokens,
      total_steps: 0,
      created_at: startedAt,
      finished_at: answer.created_at,
    },
  };
}

export async function runWorkflow({
  request,
  reply,
  gateway,
  difyApi,
  tasks,
  body,
  slug,
  authenticate,
}: {
  request: FastifyRequest;
  reply: FastifyReply;
  gateway: GatewayService;
  difyApi: DifyApiService;
  tasks: RunningTasks;
  body: { inputs?: Record<string, unknown> | null; response_mode?: 'blocking' | 'streaming'; user?: string; files?: unknown[] | null };
  slug: string;
  authenticate: () => Promise<AuthContext | null>;
}) {
  const auth = await traceAuthenticate(request, gateway, authenticate);
  const mode = await difyApi.workflowMode(slug, auth);
  if (mode !== 'workflow') throw new AppError('not_workflow_app', 'Please check if your app mode matches the right API route: this is not a workflow app');
  const workflowId = slug;
  const startedAt = Math.floor(Date.now() / 1000);
  const callBody: CallRequest = {
    inputs: body.inputs ?? {},
    response_mode: body.response_mode ?? 'blocking',
    ...(body.user !== undefined ? { user: body.user } : {}),
    ...(body.files ? { files: body.files as CallRequest['files'] } : {}),
  };
  const preparation = await preparePaidCall(gateway, request, reply, slug, 'completion', { auth }, callBody, performance.now(), 'dify');
  const streaming = callBody.response_mode === 'streaming';
  if (preparation.kind === 'replay') {
    replayHeaders(reply, preparation.body);
    const run = runAnswer(preparation.body, workflowId, startedAt);
    if (!streaming) return reply.status(preparation.status).send(run);
    const send = openStream(reply);
    send({
      event: 'workflow_started',
      task_id: run.task_id,
      workflow_run_id: run.workflow_run_id,
      data: { id: run.data.id, workflow_id: workflowId, created_at: startedAt },
    });
    send({ event: 'text_chunk', task_id: run.task_id, workflow_run_id: run.workflow_run_id, data: { text: preparation.body.answer } });
    send({ event: 'workflow_finished', task_id: run.task_id, workflow_run_id: run.workflow_run_id, data: run.data });
    reply.raw.end();
    return reply;
  }
  const call = preparation.call;
  const connection = openCall(reply, call);
  if (!streaming) {
    try {
      return runAnswer(await gateway.complete(call, connection.signal), workflowId, startedAt);
    } finally {
      connection.release();
    }
  }
  const task = tasks.track(call.taskId, call.auth.user.id, call.app.id, connection.signal);
  const send = openStream(reply);
  const pings = startPings(reply, 'event: ping\n\n');
  const runId = call.messageId;
  send({ event: 'workflow_started', task_id: call.taskId, workflow_run_id: runId, data: { id: runId, workflow_id: workflowId, created_at: startedAt } });
  try {
    const answer = await gateway.stream(call, connection.signal, (text) => {
      send({ event: 'text_chunk', task_id: call.taskId, workflow_run_id: runId, data: { text } });
    });
    send({ event: 'workflow_finished', task_id: call.taskId, workflow_run_id: runId, data: runAnswer(answer, workflowId, startedAt).data });
  } catch (error) {
    if (task.stopped) {
      send({
        event: 'workflow_finished',
        task_id: call.taskId,
        workflow_run_id: runId,
        data: {
          id: runId,
          workflow_id: workflowId,
          status: 'stopped',
          outputs: {},
          error: 'Stopped before any output; not charged',
          elapsed_time: 0,
          total_tokens: 0,
          total_steps: 0,
          created_at: startedAt,
          finished_at: Math.floor(Date.now() / 1000),
        },
      });
    } else if (!connection.signal.aborted) {
      const failure = streamFailure(reply, error, 'workflow stream failed');
      send({ event: 'error', task_id: call.taskId, workflow_run_id: runId, status: failure.status, code: failure.code, message: failure.message });
    }
  } finally {
    task.done();
    endStream(reply, connection, pings);
  }
  return reply;
}

function openStream(reply: FastifyReply) {
  const write = openEventStream(reply);
  return (event: Record<string, unknown>) => write(`data: ${JSON.stringify(event)}\n\n`);
}
