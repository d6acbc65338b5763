import type { WorkflowTestResult } from '@tollbooth/contract';
import { AppInfoSummary, InputFormTable } from './workflow-app-info';

/** Configuration Valid or Configuration Error, with the message and the app info. */
export function WorkflowTestResultPanel({ result }: { result: WorkflowTestResult }) {
  const tone = result.success ? 'bg-green-50 ring-green-200' : 'bg-red-50 ring-red-200';
  return (
    <div role="status" className={`mt-6 rounded-md p-4 ring-1 ${tone}`} data-testid="workflow-test-result">
      <h3 className={`text-sm font-semibold ${result.success ? 'text-green-800' : 'text-red-800'}`}>
        {result.success ? 'Configuration Valid' : 'Configuration Error'}
      </h3>
      <p className={`mt-1 text-sm ${result.success ? 'text-green-800' : 'text-red-700'}`}>{result.message}</p>
      {result.error ? <p className="mt-1 text-sm text-red-700">{result.error}</p> : null}
      {result.app_info ? (
        <>
          <AppInfoSummary appInfo={result.app_info} />
          <InputFormTable appInfo={result.app_info} />
        </>
      ) : null}
    </div>
  );
}
