-- Dify's Service API for callers (docs/decisions/0009): conversations get a name, each chat turn
-- keeps the answer's message id (the invocation's id), the caller's raw query and inputs, so
-- GET messages answers as Dify does; callers rate answers (feedbacks).

ALTER TABLE conversations ADD COLUMN name text;
-- GET conversations: the caller's conversations of an app, newest activity first.
CREATE INDEX conversations_caller ON conversations (app_id, caller_id, updated_at DESC, id);

-- Both rows of a turn carry its message id; turns saved before this migration have none and are
-- not listed by GET messages (they still feed the chat history).
ALTER TABLE conversation_messages ADD COLUMN message_id uuid;
ALTER TABLE conversation_messages ADD COLUMN query text;
ALTER TABLE conversation_messages ADD COLUMN inputs jsonb;
CREATE INDEX conversation_messages_message ON conversation_messages (message_id) WHERE message_id IS NOT NULL;

CREATE TABLE message_feedbacks (
  message_id uuid PRIMARY KEY,
  caller_id uuid NOT NULL REFERENCES users (id),
  app_id uuid NOT NULL REFERENCES apps (id),
  rating text NOT NULL CHECK (rating IN ('like', 'dislike')),
  content text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
