// SQL of Dify's conversation endpoints: a caller's conversations of an app, their messages (one
// per answered turn, identified by the invocation id), names and feedbacks.
import type { Database, Queryable } from '../db/client.ts';

export interface ConversationListRow {
  id: string;
  name: string | null;
  first_query: string | null;
  inputs: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

const CONVERSATION_COLUMNS = `c.id, c.name, c.created_at, c.updated_at,
  (SELECT m.query FROM conversation_messages m WHERE m.conversation_id = c.id AND m.role = 'user' ORDER BY m.id LIMIT 1) AS first_query,
  (SELECT m.inputs FROM conversation_messages m WHERE m.conversation_id = c.id AND m.role = 'user' ORDER BY m.id LIMIT 1) AS inputs`;

/** A conversation with an answered turn (a workflow chat's conversation exists before its first answer). */
const ANSWERED = `(c.turns > 0 OR EXISTS (SELECT 1 FROM conversation_messages m WHERE m.conversation_id = c.id))`;

/** The caller's conversations of an app, most recently active first, after the one with id lastId. */
export async function selectConversations(
  db: Queryable,
  filter: { appId: string; callerId: string; endUser: string | null; lastId: string | null; limit: number },
): Promise<ConversationListRow[]> {
  const { rows } = await db.query<ConversationListRow>(
    `SELECT ${CONVERSATION_COLUMNS} FROM conversations c
     WHERE c.app_id = $1 AND c.caller_id = $2 AND ($3::text IS NULL OR c.end_user = $3) AND ${ANSWERED}
       AND ($4::uuid IS NULL OR (c.updated_at, c.id) < (SELECT l.updated_at, l.id FROM conversations l WHERE l.id = $4))
     ORDER BY c.updated_at DESC, c.id DESC LIMIT $5`,
    [filter.appId, filter.callerId, filter.endUser, filter.lastId, filter.limit],
  );
  return rows;
}

export async function selectOwnConversation(db: Queryable, id: string, appId: string, callerId: string): Promise<ConversationListRow | null> {
  const { rows } = await db.query<ConversationListRow>(
    `SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.id = $1 AND c.app_id = $2 AND c.caller_id = $3`,
    [id, appId, callerId],
  );
  return rows[0] ?? null;
}

export async function updateConversationName(db: Queryable, id: string, name: string): Promise<void> {
  await db.query('UPDATE conversations SET name = $2 WHERE id = $1', [id, name]);
}

/** Removes a conversation, its turns and their feedbacks; invocations keep their conversation id as history. */
export async function deleteConversation(db: Database, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      'DELETE FROM message_feedbacks WHERE message_id IN (SELECT message_id FROM conversation_messages WHERE conversation_id = $1 AND message_id IS NOT NULL)',
      [id],
    );
    await tx.query('DELETE FROM conversation_messages WHERE conversation_id = $1', [id]);
    await tx.query('DELETE FROM conversations WHERE id = $1', [id]);
  });
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  query: string | null;
  inputs: Record<string, unknown> | null;
  answer: string;
  rating: 'like' | 'dislike' | null;
  created_at: Date;
}

/** A conversation's messages before the one with id firstId, newest first (the caller reverses them). */
export async function selectMessages(db: Queryable, conversationId: string, firstId: string | null, limit: number): Promise<MessageRow[]> {
  const { rows } = await db.query<MessageRow>(
    `SELECT a.message_id AS id, a.conversation_id, u.query, u.inputs, a.content AS answer, f.rating, a.created_at
     FROM conversation_messages a
     LEFT JOIN conversation_messages u ON u.message_id = a.message_id AND u.role = 'user'
     LEFT JOIN message_feedbacks f ON f.message_id = a.message_id
     WHERE a.conversation_id = $1 AND a.role = 'assistant' AND a.message_id IS NOT NULL
       AND ($2::uuid IS NULL OR a.id < (SELECT min(b.id) FROM conversation_messages b WHERE b.message_id = $2 AND b.conversation_id = $1))
     ORDER BY a.id DESC LIMIT $3`,
    [conversationId, firstId, limit],
  );
  return rows;
}

/** Whether a message (by its id, the invocation's) belongs to the caller's successful call to the app. */
export async function selectOwnMessage(db: Queryable, messageId: string, appId: string, callerId: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM invocations WHERE id = $1 AND app_id = $2 AND caller_id = $3 AND status = 'success'`, [
    messageId,
    appId,
    callerId,
  ]);
  return rows.length > 0;
}

export async function upsertFeedback(
  db: Queryable,
  feedback: { messageId: string; appId: string; callerId: string; rating: 'like' | 'dislike' | null; content: string },
): Promise<void> {
  if (feedback.rating === null) {
    await db.query('DELETE FROM message_feedbacks WHERE message_id = $1', [feedback.messageId]);
    return;
  }
  await db.query(
    `INSERT INTO message_feedbacks (message_id, caller_id, app_id, rating, content) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (message_id) DO UPDATE SET rating = EXCLUDED.rating, content = EXCLUDED.content, updated_at = now()`,
    [feedback.messageId, feedback.callerId, feedback.appId, feedback.rating, feedback.content],
  );
}

export interface WorkflowRunRow {
  id: string;
  status: 'success' | 'error';
  error_type: string;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  end_user: string;
  created_at: Date;
}

const RUN_COLUMNS = 'i.id, i.status, i.error_type, i.latency_ms, i.input_tokens, i.output_tokens, i.end_user, i.created_at';

/** One of the caller's runs (invocations) of the app. */
export async function selectOwnWorkflowRun(db: Queryable, appId: string, callerId: string, runId: string): Promise<WorkflowRunRow | null> {
  const { rows } = await db.query<WorkflowRunRow>(`SELECT ${RUN_COLUMNS} FROM invocations i WHERE i.id = $1 AND i.app_id = $2 AND i.caller_id = $3`, [
    runId,
    appId,
    callerId,
  ]);
  return rows[0] ?? null;
}

/** A page of the caller's runs of the app, newest first, and how many there are in all. */
export async function selectWorkflowRuns(
  db: Queryable,
  filter: { appId: string; callerId: string; status: 'success' | 'error' | null; keyword: string | null; offset: number; limit: number },
): Promise<{ rows: WorkflowRunRow[]; total: number }> {
  const where = `i.app_id = $1 AND i.caller_id = $2 AND ($3::text IS NULL OR i.status = $3)
    AND ($4::text IS NULL OR strpos(lower(i.end_user), lower($4)) > 0)`;
  const params = [filter.appId, filter.callerId, filter.status, filter.keyword];
  const [page, count] = await Promise.all([
    db.query<WorkflowRunRow>(`SELECT ${RUN_COLUMNS} FROM invocations i WHERE ${where} ORDER BY i.created_at DESC, i.id DESC OFFSET $5 LIMIT $6`, [
      ...params,
      filter.offset,
      filter.limit,
    ]),
    db.query<{ total: number }>(`SELECT count(*)::int AS total FROM invocations i WHERE ${where}`, params),
  ]);
  return { rows: page.rows, total: count.rows[0]?.total ?? 0 };
}
