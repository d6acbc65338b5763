// A workflow provider's stream events other than text (Dify's agent_thought, message_file,
// message_replace, tts_message, workflow_started, node_started, node_finished, workflow_finished…)
// as a streaming caller receives them: Dify's own event, with Tollbooth's ids in place of the
// provider's, so no upstream task, message, conversation or run id reaches the caller.

export interface CallerIds {
  /** The call's task id: Tollbooth's message events carry it as task_id and message_id. */
  taskId: string;
  /** Tollbooth's conversation id ('' outside a conversation). */
  conversationId: string;
  /** The answer's message id, when it differs from the task id (the gateway's message events carry it). */
  messageId?: string;
}

/** Fields that name the upstream run; the node ids and thought ids describe the app and stay. */
const RUN_ID_FIELDS = ['task_id', 'message_id', 'workflow_run_id'] as const;

export function toCallerEvent(event: Record<string, unknown>, ids: CallerIds): Record<string, unknown> {
  const rewritten: Record<string, unknown> = { ...event };
  for (const field of RUN_ID_FIELDS) if (field in rewritten) rewritten[field] = field === 'message_id' ? (ids.messageId ?? ids.taskId) : ids.taskId;
  rewritten.task_id = ids.taskId;
  if ('conversation_id' in rewritten) rewritten.conversation_id = ids.conversationId;
  // workflow_started / workflow_finished carry the run id again as data.id.
  const data = rewritten.data;
  if ((event.event === 'workflow_started' || event.event === 'workflow_finished') && data && typeof data === 'object' && !Array.isArray(data)) {
    rewritten.data = { ...(data as Record<string, unknown>), id: ids.taskId };
  }
  return rewritten;
}
