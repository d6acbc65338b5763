import type { PromptTestResult } from '@tollbooth/contract';
import { testRunChargeText } from '@/lib/charged';

/** The Template Valid / Template Error panel, with the model's answer and token usage when the test ran the model. */
export function TemplateTestResult({ result }: { result: PromptTestResult }) {
  const tone = result.success ? 'bg-green-50 ring-green-200' : 'bg-red-50 ring-red-200';
  const titleTone = result.success ? 'text-green-800' : 'text-red-800';
  return (
    <section aria-label="Test result" data-testid="test-result" className={`rounded-lg p-4 ring-1 ${tone}`}>
      <h3 className={`text-sm font-semibold ${titleTone}`}>{result.success ? 'Template Valid' : 'Template Error'}</h3>
      <p className="mt-1 text-sm text-gray-800">{result.message}</p>
      {result.error ? <p className="mt-1 text-sm text-red-700">{result.error}</p> : null}

      <h4 className="mt-4 text-xs font-semibold tracking-wide text-gray-600 uppercase">Rendered Template</h4>
      <pre data-testid="rendered-template" className="mt-1 rounded-md bg-white p-3 font-mono text-sm whitespace-pre-wrap text-gray-900 ring-1 ring-gray-200">
        {result.rendered_template}
      </pre>

      <h4 className="mt-4 text-xs font-semibold tracking-wide text-gray-600 uppercase">Detected Variables</h4>
      {result.detected_variables.length > 0 ? (
        <ul aria-label="Detected variables" className="mt-1 flex flex-wrap gap-2">
          {result.detected_variables.map((name) => (
            <li key={name} className="rounded-full bg-indigo-100 px-2.5 py-0.5 font-mono text-xs font-semibold text-indigo-800">
              {name}
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-1 text-sm text-gray-600">None</p>
      )}

      {result.answer !== undefined ? (
        <>
          <h4 className="mt-4 text-xs font-semibold tracking-wide text-gray-600 uppercase">Model Answer</h4>
          <pre data-testid="model-answer" className="mt-1 rounded-md bg-white p-3 text-sm whitespace-pre-wrap text-gray-900 ring-1 ring-gray-200">
            {result.answer}
          </pre>
        </>
      ) : null}
      {result.usage ? (
        <p data-testid="token-usage" className="mt-2 text-sm text-gray-700">
          Token usage: {result.usage.input_tokens} input, {result.usage.output_tokens} output
        </p>
      ) : null}
      {result.run_cost ? (
        <p data-testid="test-run-charge" className="mt-1 text-sm font-medium text-gray-900">
          {testRunChargeText(result.run_cost)}
        </p>
      ) : null}
    </section>
  );
}
