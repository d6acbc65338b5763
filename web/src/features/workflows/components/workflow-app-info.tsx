import type { WorkflowAppInfo } from '@tollbooth/contract';
import { useId } from 'react';
import { HeadCells } from '@/components/ui/head-cells';
import { describeMode, inputFormFields } from '../lib/workflow-detail.utils';

/** What the provider said about the app: name, description, mode. */
export function AppInfoSummary({ appInfo }: { appInfo: WorkflowAppInfo }) {
  return (
    <dl className="mt-3 grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-3" data-testid="app-info">
      <div>
        <dt className="font-medium text-gray-500">App name</dt>
        <dd className="text-gray-900">{appInfo.name || '—'}</dd>
      </div>
      <div>
        <dt className="font-medium text-gray-500">Mode</dt>
        <dd className="text-gray-900">
          {describeMode(appInfo.mode)} <span className="font-mono text-xs text-gray-500">({appInfo.mode})</span>
        </dd>
      </div>
      <div className="sm:col-span-3">
        <dt className="font-medium text-gray-500">Description</dt>
        <dd className="text-gray-900">{appInfo.description || '—'}</dd>
      </div>
    </dl>
  );
}

/** The app's input form as the provider reports it: what callers send as `inputs`. */
export function InputFormTable({ appInfo }: { appInfo: WorkflowAppInfo | null }) {
  const fields = inputFormFields(appInfo);
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="mt-8">
      <h3 id={headingId} className="text-base font-semibold text-gray-900">
        Input Form
      </h3>
      {!appInfo ? (
        <p className="mt-2 text-sm text-gray-600">Run Test Config or save to load the app's input form from the provider.</p>
      ) : fields.length === 0 ? (
        <p className="mt-2 text-sm text-gray-600">This app takes no inputs{appInfo.mode.includes('chat') ? ' besides the chat query' : ''}.</p>
      ) : (
        <div className="mt-3 overflow-x-auto">
          <table className="min-w-full divide-y divide-gray-200 text-sm">
            <thead>
              <tr className="text-left text-gray-500">
                <HeadCells labels={['Variable', 'Label', 'Type', 'Required', 'Rules']} y="py-2" gap="pr-4" medium />
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-100">
              {fields.map((field) => (
                <tr key={field.variable}>
                  <td className="py-2 pr-4 font-mono text-gray-900">{field.variable}</td>
                  <td className="py-2 pr-4 text-gray-900">{field.label}</td>
                  <td className="py-2 pr-4 text-gray-700">{field.kind}</td>
                  <td className="py-2 pr-4 text-gray-700">{field.required ? 'Yes' : 'No'}</td>
                  <td className="py-2 text-gray-700">
                    {[
                      field.options.length > 0 ? `one of ${field.options.join(', ')}` : null,
                      field.maxLength ? `at most ${field.maxLength} characters` : null,
                      field.defaultValue ? `default ${field.defaultValue}` : null,
                    ]
                      .filter(Boolean)
                      .join('; ') || '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
