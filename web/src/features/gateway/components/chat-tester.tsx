import { useId, useState } from 'react';
import { inputField, primaryButton, secondaryButton } from '@/components/ui/styles';
import { useSendChat } from '../api/send-chat';
import { API_KEY_REQUIRED, CHAT_INPUT_REQUIRED, chatFailedMessage } from '../lib/console-messages';
import { buildInputs } from '../lib/input-fields';
import { type TesterProps, useClearOnAppChange } from './completion-tester';
import { StreamingAnswer, TestError, TestResult } from './test-result';

/** A conversation belongs to one app and one caller; another slug or key starts afresh. */
interface Conversation {
  slug: string;
  apiKey: string;
  id: string;
}

export function ChatTester({ slug, apiKey, stream, inputs, fieldValues, needsKey }: TesterProps) {
  const id = useId();
  const chat = useSendChat();
  const [query, setQuery] = useState('');
  const [validationError, setValidationError] = useState<string | null>(null);
  const [streamed, setStreamed] = useState<string | null>(null);
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const trimmedSlug = slug.trim();
  const conversationId = conversation && conversation.slug === trimmedSlug && conversation.apiKey === apiKey ? conversation.id : '';

  const { reset } = chat;
  useClearOnAppChange(trimmedSlug, () => {
    reset();
    setValidationError(null);
    setStreamed(null);
  });

  function runTest() {
    if (trimmedSlug === '' || query.trim() === '') {
      setValidationError(CHAT_INPUT_REQUIRED);
      return;
    }
    if (needsKey) {
      chat.reset();
      setValidationError(API_KEY_REQUIRED);
      return;
    }
    setValidationError(null);
    setStreamed(stream ? '' : null);
    chat.mutate(
      {
        slug: trimmedSlug,
        apiKey,
        stream,
        query,
        inputs: buildInputs(inputs.formFields, fieldValues),
        conversationId: conversationId || undefined,
        onAnswer: setStreamed,
      },
      {
        onSuccess: (answer) => {
          if (answer.conversation_id) setConversation({ slug: trimmedSlug, apiKey, id: answer.conversation_id });
        },
        onSettled: () => setStreamed(null),
      },
    );
  }

  const busy = chat.isPending;
  return (
    <section aria-labelledby={`${id}-title`} className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
      <h2 id={`${id}-title`} className="text-lg font-semibold text-gray-900">
        Test Chat API
      </h2>
      <label htmlFor={`${id}-query`} className="mt-4 block text-sm font-medium text-gray-700">
        Chat Query
      </label>
      <textarea
        id={`${id}-query`}
        rows={4}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        placeholder="Enter a chat message..."
        className={`${inputField} mt-1`}
      />
      <div className="mt-2 flex flex-wrap items-center gap-3 text-sm text-gray-600">
        {conversationId ? (
          <>
            <span>
              Conversation: <code data-testid="current-conversation-id">{conversationId}</code>
            </span>
            <button type="button" className={secondaryButton} disabled={busy} onClick={() => setConversation(null)}>
              Reset Conversation
            </button>
          </>
        ) : (
          <span>No conversation yet: the next message starts a new one.</span>
        )}
      </div>
      <button type="button" className={`${primaryButton} mt-4`} disabled={busy || slug === '' || query === ''} onClick={runTest}>
        {busy ? 'Testing...' : 'Test Chat'}
      </button>
      {validationError ? <TestError message={validationError} /> : null}
      {busy && streamed !== null ? <StreamingAnswer answer={streamed} /> : null}
      {chat.isError ? <TestError message={chatFailedMessage(chat.error)} error={chat.error} /> : null}
      {chat.data ? <TestResult result={chat.data} showConversation /> : null}
    </section>
  );
}
