import { Link } from 'react-router';
import { callChargeText } from '@/lib/charged';
import { ApiError } from '@/lib/errors';
import type { GatewayAnswer } from '../api/gateway-types';
import { formatCreatedAt } from '../lib/console-messages';

/** The success box: answer, id, created time, tokens, and for chat the conversation id. */
export function TestResult({ result, showConversation = false }: { result: GatewayAnswer; showConversation?: boolean }) {
  const rows: Array<[string, string, string]> = [
    ['ID', result.id, 'result-id'],
    ['Created', formatCreatedAt(result.created_at), 'result-created'],
    ['Input Tokens', String(result.metadata.usage.input_tokens), 'result-input-tokens'],
    ['Output Tokens', String(result.metadata.usage.output_tokens), 'result-output-tokens'],
  ];
  const charged = callChargeText(result.metadata.usage, result.metadata.demo === true);
  if (showConversation) rows.push(['Conversation ID', result.conversation_id, 'result-conversation-id']);

  // One level of <div> between <dl> and its <dt>/<dd> pairs, as the definition-list rules allow.
  return (
    <div role="status" className="mt-4 rounded-md bg-green-50 p-4 ring-1 ring-green-200">
      <h3 className="text-sm font-semibold text-green-800">Response Received</h3>
      <p className="mt-1 text-sm font-medium text-gray-900" data-testid="result-charged">
        {charged}
      </p>
      <dl className="mt-3 grid grid-cols-1 gap-3 text-sm sm:grid-cols-2">
        <div className="sm:col-span-2">
          <dt className="font-medium text-gray-600">Answer</dt>
          <dd className="mt-1 rounded bg-white p-3 whitespace-pre-wrap text-gray-900 ring-1 ring-green-100" data-testid="result-answer">
            {result.answer}
          </dd>
        </div>
        {rows.map(([label, value, testId]) => (
          <div key={label}>
            <dt className="font-medium text-gray-600">{label}</dt>
            <dd className="mt-1 font-mono break-all text-gray-900" data-testid={testId}>
              {value}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** The answer so far while a streamed response arrives. */
export function StreamingAnswer({ answer }: { answer: string }) {
  return (
    <div className="mt-4 rounded-md bg-indigo-50 p-4 ring-1 ring-indigo-200">
      <h3 className="text-sm font-semibold text-indigo-800">Receiving response...</h3>
      <p aria-live="polite" className="mt-2 text-sm whitespace-pre-wrap text-gray-900" data-testid="streaming-answer">
        {answer}
      </p>
    </div>
  );
}

/** A failed test; a caller out of credit gets the way to add some, one click away (issue 25). */
export function TestError({ message, error }: { message: string; error?: unknown }) {
  const outOfCredit = error instanceof ApiError && error.code === 'insufficient_credits';
  return (
    <div role="alert" className="mt-4 rounded-md bg-red-50 p-4 text-sm text-red-700 ring-1 ring-red-200">
      {message}
      {outOfCredit ? (
        <p className="mt-2">
          <Link to="/money" className="font-semibold text-red-800 underline hover:text-red-900">
            Add credits on the Money page
          </Link>
        </p>
      ) : null}
    </div>
  );
}
