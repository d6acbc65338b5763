-- Reads on a replica (DATABASE_READ_URL, decision 0130): the primary's WAL insert position after each
-- user's last change, recorded before that change's answer is sent. A read of that user's goes to the
-- replica only once the replica has replayed past it, so nobody sees their own change undone.
-- One row per user who changed something, updated in place; read with the user on each request.
CREATE TABLE user_write_positions (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  written_lsn pg_lsn NOT NULL
);
