// Streams running in this process, by task id, so Dify's POST {mode}-messages/{task_id}/stop can
// abort one (its upstream call is aborted with it). Only the caller who started a task can stop it;
// an unknown task answers success like Dify. A stop reaching another process than the stream's
// finds nothing there (see docs/decisions/0009): the caller can still hang up, with the same charge rule.
import type { StreamEvent } from '@tollbooth/contract';
import { priceFields } from '../platform/call-rules.ts';

interface RunningTask {
  callerId: string;
  appId: string;
  abort: { abort(): void };
  stopped: boolean;
}

export interface TaskHandle {
  /** True once a stop request aborted the task. */
  readonly stopped: boolean;
  /** The stream is over: forget the task. */
  done(): void;
}

export function createRunningTasks() {
  const tasks = new Map<string, RunningTask>();
  return {
    track(taskId: string, callerId: string, appId: string, abort: { abort(): void }): TaskHandle {
      const task: RunningTask = { callerId, appId, abort, stopped: false };
      tasks.set(taskId, task);
      return {
        get stopped() {
          return task.stopped;
        },
        done: () => {
          if (tasks.get(taskId) === task) tasks.delete(taskId);
        },
      };
    },
    /** Aborts the caller's task of the app; false when there is none here. */
    stop(taskId: string, callerId: string, appId: string): boolean {
      const task = tasks.get(taskId);
      if (!task || task.callerId !== callerId || task.appId !== appId) return false;
      task.stopped = true;
      task.abort.abort();
      return true;
    },
  };
}

export type RunningTasks = ReturnType<typeof createRunningTasks>;

/** The end of a stream stopped before any answer chunk was sent: like Dify, a message_end; nothing was charged. */
export function stoppedMessageEnd(call: { taskId: string; messageId: string; conversationId: string | null }): StreamEvent {
  return {
    event: 'message_end',
    task_id: call.taskId,
    id: call.messageId,
    message_id: call.messageId,
    conversation_id: call.conversationId ?? '',
    metadata: {
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, input_tokens: 0, output_tokens: 0, ...priceFields(0), latency: 0 },
      retriever_resources: [],
    },
  };
}
