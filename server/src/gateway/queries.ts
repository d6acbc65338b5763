// The SQL of the gateway: conversations it reads back for chat history, and the files callers
// upload to reference in calls. A call's charge and record are billing's (billing/paid-call/service.ts).
import type { Database } from '../db/client.ts';

export async function selectConversationOwner(db: Database, conversationId: string): Promise<{ app_id: string; caller_id: string } | undefined> {
  const { rows } = await db.query<{ app_id: string; caller_id: string }>('SELECT app_id, caller_id FROM conversations WHERE id = $1', [conversationId]);
  return rows[0];
}

/** The conversation's last `limit` messages, oldest first. */
export async function selectRecentMessages(db: Database, conversationId: string, limit: number) {
  const { rows } = await db.query<{ role: 'user' | 'assistant'; content: string }>(
    `SELECT role, content FROM (SELECT id, role, content FROM conversation_messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2) recent ORDER BY id`,
    [conversationId, limit],
  );
  return rows;
}

export async function selectUploadedFile(db: Database, id: string) {
  const { rows } = await db.query<{ mime_type: string; storage_path: string; user_id: string }>(
    'SELECT mime_type, storage_path, user_id FROM uploaded_files WHERE id = $1',
    [id],
  );
  return rows[0];
}

export async function insertUploadedFile(
  db: Database,
  file: { id: string; userId: string; appId: string; name: string; size: number; extension: string; mimeType: string; storagePath: string },
) {
  const { rows } = await db.query<{ size: number; created_at: Date }>(
    `INSERT INTO uploaded_files (id, user_id, app_id, name, size, extension, mime_type, storage_path)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING size, created_at`,
    [file.id, file.userId, file.appId, file.name, file.size, file.extension, file.mimeType, file.storagePath],
  );
  return rows[0]!;
}

export async function sumUploadedBytes(db: Database, userId: string): Promise<number> {
  const { rows } = await db.query<{ used: number }>('SELECT coalesce(sum(size), 0)::bigint AS used FROM uploaded_files WHERE user_id = $1', [userId]);
  return Number(rows[0]?.used ?? 0);
}

/** Removes the rows of up to 1000 uploads older than the retention period; returns their files' paths. */
export async function deleteExpiredUploads(db: Database, retentionDays: number): Promise<string[]> {
  const { rows } = await db.query<{ storage_path: string }>(
    `DELETE FROM uploaded_files WHERE id IN (
       SELECT id FROM uploaded_files WHERE created_at < now() - make_interval(days => $1) LIMIT 1000
     ) RETURNING storage_path`,
    [retentionDays],
  );
  return rows.map((row) => row.storage_path);
}
