import { type ReactNode, useEffect, useId, useState } from 'react';
import { inputField, primaryButton } from '@/components/ui/styles';
import type { GatewayAnswer } from '../api/gateway-types';
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

/** A tester's run: the checks before a call, the streamed answer, both cleared when another app is chosen. */
export function useTesterRun({ slug, stream, needsKey }: TesterProps, call: { reset: () => void }, inputRequired: string) {
  const [validationError, setValidationError] = useState<string | null>(null);
  const [streamed, setStreamed] = useState<string | null>(null);
  const { reset } = call;
  useClearOnAppChange(slug.trim(), () => {
    reset();
    setValidationError(null);
    setStreamed(null);
  });
  /** Whether the call may start: an app and a text are given, and a key when one is needed. */
  function ready(text: string) {
    if (slug.trim() === '' || text.trim() === '') {
      setValidationError(inputRequired);
      return false;
    }
    if (needsKey) {
      reset();
      setValidationError(API_KEY_REQUIRED);
      return false;
    }
    setValidationError(null);
    setStreamed(stream ? '' : null);
    return true;
  }
  return { slug, validationError, streamed, setStreamed, ready };
}

/** What a tester is: its title, its run button's label, how a failure reads, whether its answer shows the conversation. */
export interface TesterKind {
  title: string;
  runLabel: string;
  failedMessage: (error: unknown) => string;
  showConversation?: boolean;
}

interface TesterCardProps {
  kind: TesterKind;
  input: { name: string; label: string; value: string; onChange: (value: string) => void; placeholder: string };
  run: { slug: string; validationError: string | null; streamed: string | null };
  call: { isPending: boolean; isError: boolean; error: unknown; data: GatewayAnswer | undefined };
  onRun: () => void;
  children?: ReactNode;
}

/** A tester's card: its text, what the tester adds under it, the run button, then the check, the streamed answer, the failure or the answer. */
export function TesterCard({ kind, input, run, call, onRun, children }: TesterCardProps) {
  const id = useId();
  const busy = call.isPending;
  return (
    <section aria-labelledby={`${id}-title`} className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
      <h2 id={`${id}-title`} className="text-lg font-semibold text-gray-900">
        {kind.title}
      </h2>
      <label htmlFor={`${id}-${input.name}`} className="mt-4 block text-sm font-medium text-gray-700">
        {input.label}
      </label>
      <textarea
        id={`${id}-${input.name}`}
        rows={4}
        value={input.value}
        onChange={(event) => input.onChange(event.target.value)}
        placeholder={input.placeholder}
        className={`${inputField} mt-1`}
      />
      {children}
      <button type="button" className={`${primaryButton} mt-4`} disabled={busy || run.slug === '' || input.value === ''} onClick={onRun}>
        {busy ? 'Testing...' : kind.runLabel}
      </button>
      {run.validationError ? <TestError message={run.validationError} /> : null}
      {busy && run.streamed !== null ? <StreamingAnswer answer={run.streamed} /> : null}
      {call.isError ? <TestError message={kind.failedMessage(call.error)} error={call.error} /> : null}
      {call.data ? <TestResult result={call.data} showConversation={kind.showConversation} /> : null}
    </section>
  );
}

const COMPLETION: TesterKind = { title: 'Test Completion API', runLabel: 'Test Completion', failedMessage: completionFailedMessage };

export function CompletionTester(props: TesterProps) {
  const { slug, apiKey, stream, inputs, fieldValues } = props;
  const completion = useSendCompletion();
  const [text, setText] = useState('');
  const run = useTesterRun(props, completion, COMPLETION_INPUT_REQUIRED);

  function runTest() {
    if (!run.ready(text)) return;
    completion.mutate(
      { slug: slug.trim(), apiKey, stream, inputs: completionInputs(inputs, fieldValues, text), onAnswer: run.setStreamed },
      { onSettled: () => run.setStreamed(null) },
    );
  }

  const input = {
    name: 'text',
    label: 'Input Text',
    value: text,
    onChange: setText,
    placeholder: `Enter the text to send as the ${inputs.textInput ?? 'query'} input...`,
  };
  return <TesterCard kind={COMPLETION} input={input} run={run} call={completion} onRun={runTest} />;
}
