// Chat app: a conversation that streams each answer, continues by conversation id, and starts over
// with New conversation. The app's input fields are conversation settings sent with every message.
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { app } from './app-description';
import { Fields, initialValues, toInputs } from './fields';
import { ErrorMessage, Layout, UsageLine } from './layout';
import { CallError, callApp, type Usage } from './tollbooth';

interface Message {
  id: number;
  role: 'user' | 'assistant';
  text: string;
  usage?: Usage | null;
}

export function App() {
  const [settings, setSettings] = useState(() => initialValues(app.fields));
  const [messages, setMessages] = useState<Message[]>([]);
  const [draft, setDraft] = useState('');
  const [conversationId, setConversationId] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const nextId = useRef(1);
  const end = useRef<HTMLLIElement | null>(null);
  const input = useRef<HTMLTextAreaElement | null>(null);

  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages]);

  const send = async (event?: { preventDefault(): void }) => {
    event?.preventDefault();
    const query = draft.trim();
    if (!query || sending) return;
    setError(null);
    let inputs: Record<string, unknown>;
    try {
      inputs = toInputs(app.fields, settings);
    } catch (invalid) {
      setError(`Conversation settings: ${(invalid as Error).message}`);
      return;
    }
    const userMessage: Message = { id: nextId.current++, role: 'user', text: query };
    const answerId = nextId.current++;
    setMessages((previous) => [...previous, userMessage, { id: answerId, role: 'assistant', text: '' }]);
    setDraft('');
    const controller = new AbortController();
    abort.current = controller;
    setSending(true);
    const update = (changes: Partial<Message>) =>
      setMessages((previous) => previous.map((message) => (message.id === answerId ? { ...message, ...changes } : message)));
    try {
      const result = await callApp('chat', { inputs, query, conversationId }, (text) => update({ text }), controller.signal);
      update({ text: result.answer, usage: result.usage });
      setConversationId(result.conversationId);
    } catch (failure) {
      setMessages((previous) => previous.filter((message) => message.id !== answerId || message.text !== ''));
      if (!controller.signal.aborted) {
        setError(failure instanceof CallError ? failure.message : 'Something went wrong. Please try again.');
        setDraft(query);
      }
    } finally {
      setSending(false);
      abort.current = null;
      input.current?.focus();
    }
  };

  const newConversation = () => {
    abort.current?.abort();
    setMessages([]);
    setConversationId('');
    setError(null);
    setDraft('');
    input.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends, Shift+Enter starts a new line.
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) void send(event);
  };

  return (
    <Layout>
      <div className="chat-toolbar">
        <button type="button" className="button button-quiet" onClick={newConversation} disabled={messages.length === 0 && !sending}>
          New conversation
        </button>
      </div>
      {app.fields.length > 0 ? (
        <details className="card settings">
          <summary>Conversation settings</summary>
          <Fields fields={app.fields} values={settings} onChange={setSettings} disabled={sending} />
        </details>
      ) : null}
      <section className="card conversation" aria-label="Conversation">
        {messages.length === 0 ? <p className="placeholder">Ask anything to start a conversation.</p> : null}
        <ol className="messages" aria-live="polite">
          {messages.map((message) => (
            <li key={message.id} className={`message message-${message.role}`}>
              <span className="visually-hidden">{message.role === 'user' ? 'You said:' : `${app.name} said:`}</span>
              <div className="bubble">{message.text || (sending ? <span className="placeholder">Thinking…</span> : null)}</div>
              {message.role === 'assistant' ? <UsageLine usage={message.usage ?? null} /> : null}
            </li>
          ))}
          <li ref={end} aria-hidden="true" className="messages-end" />
        </ol>
      </section>
      <ErrorMessage message={error} />
      <form className="card composer" onSubmit={send}>
        <label htmlFor="message" className="visually-hidden">
          Message
        </label>
        <textarea
          id="message"
          ref={input}
          rows={2}
          placeholder="Write a message (Enter to send, Shift+Enter for a new line)"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <button type="submit" className="button" disabled={sending || draft.trim() === ''}>
          {sending ? 'Sending…' : 'Send'}
        </button>
      </form>
    </Layout>
  );
}
