import { useState } from 'react';
import { secondaryButton } from '@/components/ui/styles';
import { useSendChat } from '../api/send-chat';
import { CHAT_INPUT_REQUIRED, chatFailedMessage } from '../lib/console-messages';
import { buildInputs } from '../lib/input-fields';
import { TesterCard, type TesterKind, type TesterProps, useTesterRun } from './completion-tester';

/** A conversation belongs to one app and one caller; another slug or key starts afresh. */
interface Conversation {
  slug: string;
  apiKey: string;
  id: string;
}

const CHAT: TesterKind = { title: 'Test Chat API', runLabel: 'Test Chat', failedMessage: chatFailedMessage, showConversation: true };

export function ChatTester(props: TesterProps) {
  const { slug, apiKey, stream, inputs, fieldValues } = props;
  const chat = useSendChat();
  const [query, setQuery] = useState('');
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const trimmedSlug = slug.trim();
  const conversationId = conversation && conversation.slug === trimmedSlug && conversation.apiKey === apiKey ? conversation.id : '';
  const run = useTesterRun(props, chat, CHAT_INPUT_REQUIRED);

  function runTest() {
    if (!run.ready(query)) return;
    chat.mutate(
      {
        slug: trimmedSlug,
        apiKey,
        stream,
        query,
        inputs: buildInputs(inputs.formFields, fieldValues),
        conversationId: conversationId || undefined,
        onAnswer: run.setStreamed,
      },
      {
        onSuccess: (answer) => {
          if (answer.conversation_id) setConversation({ slug: trimmedSlug, apiKey, id: answer.conversation_id });
        },
        onSettled: () => run.setStreamed(null),
      },
    );
  }

  const input = { name: 'query', label: 'Chat Query', value: query, onChange: setQuery, placeholder: 'Enter a chat message...' };
  return (
    <TesterCard kind={CHAT} input={input} run={run} call={chat} onRun={runTest}>
      <div className="mt-2 flex flex-wrap items-center gap-3 text-sm text-gray-600">
        {conversationId ? (
          <>
            <span>
              Conversation: <code data-testid="current-conversation-id">{conversationId}</code>
            </span>
            <button type="button" className={secondaryButton} disabled={chat.isPending} onClick={() => setConversation(null)}>
              Reset Conversation
            </button>
          </>
        ) : (
          <span>No conversation yet: the next message starts a new one.</span>
        )}
      </div>
    </TesterCard>
  );
}
