import { useEffect, useId, useState } from 'react';
import { inputField, primaryButton } from '@/components/ui/styles';
import { useSendCompletion } from '../api/send-completion';
import { type ConsoleInputs, completionInputs } from '../lib/console-inputs';
import { API_KEY_REQUIRED, COMPLETION_INPUT_REQUIRED, completionFailedMessage } from '../lib/console-messages';
import { StreamingAnswer, TestError, TestResult } from './test-result';

export interface TesterProps {
  /** As typed; trimmed before the call. */
  slug: string;
  apiKey: string;
  stream: boolean;
  inputs: ConsoleInputs;
  fieldValues: Record<string, string>;
  /** An anonymous visitor without an API key: a test explains that a key is needed instead of failing with 401. */
  needsKey: boolean;
}

/** Clears a tester's answer, error and stream when another app is chosen: they were about the last one. */
export function useClearOnAppChange(slug: string, clear: () => void) {
  const [shownFor, setShownFor] = useState(slug);
  useEffect(() => {
    if (slug === shownFor) return;
    setShownFor(slug);
    clear();
  }, [slug, shownFor, clear]);
}

export function CompletionTester({ slug, apiKey, stream, inputs, fieldValues, needsKey }: TesterProps) {
  const id = useId();
  const completion = useSendCompletion();
  const [text, setText] = useState('');
  const [validationError, setValidationError] = useState<string | null>(null);
  const [streamed, setStreamed] = useState<string | null>(null);
  const { reset } = completion;
  useClearOnAppChange(slug.trim(), () => {
    reset();
    setValidationError(null);
    setStreamed(null);
  });

  function runTest() {
    if (slug.trim() === '' || text.trim() === '') {
      setValidationError(COMPLETION_INPUT_REQUIRED);
      return;
    }
    if (needsKey) {
      completion.reset();
      setValidationError(API_KEY_REQUIRED);
      return;
    }
    setValidationError(null);
    setStreamed(stream ? '' : null);
    completion.mutate(
      { slug: slug.trim(), apiKey, stream, inputs: completionInputs(inputs, fieldValues, text), onAnswer: setStreamed },
      { onSettled: () => setStreamed(null) },
    );
  }

  const busy = completion.isPending;
  return (
    <section aria-labelledby={`${id}-title`} className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
      <h2 id={`${id}-title`} className="text-lg font-semibold text-gray-900">
        Test Completion API
      </h2>
      <label htmlFor={`${id}-text`} className="mt-4 block text-sm font-medium text-gray-700">
        Input Text
      </label>
      <textarea
        id={`${id}-text`}
        rows={4}
        value={text}
        onChange={(event) => setText(event.target.value)}
        placeholder={`Enter the text to send as the ${inputs.textInput ?? 'query'} input...`}
        className={`${inputField} mt-1`}
      />
      <button type="button" className={`${primaryButton} mt-4`} disabled={busy || slug === '' || text === ''} onClick={runTest}>
        {busy ? 'Testing...' : 'Test Completion'}
      </button>
      {validationError ? <TestError message={validationError} /> : null}
      {busy && streamed !== null ? <StreamingAnswer answer={streamed} /> : null}
      {completion.isError ? <TestError message={completionFailedMessage(completion.error)} error={completion.error} /> : null}
      {completion.data ? <TestResult result={completion.data} /> : null}
    </section>
  );
}
