import { AUTO_DECLARED_DESCRIPTION, type IoSchema, type PromptTestResult } from '@tollbooth/contract';
import { useId } from 'react';
import { FormAlert } from '@/components/ui/form-alert';
import { inputField, primaryButton } from '@/components/ui/styles';
import { sampleInputs } from '../lib/curl-example';
import type { PromptDraft } from '../lib/prompt-builder.utils';
import { buildTestInputs } from '../lib/test-inputs';
import { CurlExample } from './curl-example';
import { TemplateTestResult } from './template-test-result';

interface BuilderPreviewTestProps {
  draft: PromptDraft;
  inputSchema: IoSchema;
  variables: readonly string[];
  testTexts: Record<string, string>;
  onTestTextsChange: (texts: Record<string, string>) => void;
  onTest: () => void;
  testing: boolean;
  result: PromptTestResult | null;
  testError: string | null;
  /** The application's slug once saved; before that, the draft's slug. */
  slug: string;
  saved: boolean;
}

function PromptPreview({ title, text }: { title: string; text: string }) {
  return (
    <div>
      <h2 className="text-sm font-medium text-gray-700">{title}</h2>
      <pre className="mt-1 min-h-12 rounded-md bg-gray-50 p-3 font-mono text-sm whitespace-pre-wrap text-gray-900 ring-1 ring-gray-200">
        {text || <span className="text-gray-600">Empty</span>}
      </pre>
    </div>
  );
}

export function BuilderPreviewTest(props: BuilderPreviewTestProps) {
  const { draft, inputSchema, variables, testTexts, onTestTextsChange, onTest, testing, result, testError, slug, saved } = props;
  const id = useId();
  const typedInputs = buildTestInputs(testTexts, variables, inputSchema);

  return (
    <div className="space-y-6">
      <PromptPreview title="System Prompt" text={draft.system_prompt} />
      <PromptPreview title="User Prompt Template" text={draft.user_prompt_template} />

      <section aria-labelledby={`${id}-inputs`} className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
        <h2 id={`${id}-inputs`} className="text-base font-semibold text-gray-900">
          Test Inputs
        </h2>
        {variables.length === 0 ? (
          <p className="mt-2 text-sm text-gray-600">The template has no {'{{variables}}'}.</p>
        ) : (
          <div className="mt-3 grid grid-cols-1 gap-4 sm:grid-cols-2">
            {variables.map((name) => {
              const property = inputSchema.properties[name];
              const inputId = `${id}-test-${name}`;
              const value = testTexts[name] ?? '';
              const change = (text: string) => onTestTextsChange({ ...testTexts, [name]: text });
              return (
                <div key={name}>
                  <label htmlFor={inputId} className="block font-mono text-sm font-medium text-gray-700">
                    {name}
                  </label>
                  {property?.type === 'boolean' ? (
                    <select id={inputId} value={value} onChange={(event) => change(event.target.value)} className={`${inputField} mt-1`}>
                      <option value="">(no value)</option>
                      <option value="true">true</option>
                      <option value="false">false</option>
                    </select>
                  ) : (
                    <input
                      id={inputId}
                      type={property?.type === 'number' || property?.type === 'integer' ? 'number' : 'text'}
                      step="any"
                      value={value}
                      placeholder={property?.description ?? ''}
                      onChange={(event) => change(event.target.value)}
                      className={`${inputField} mt-1`}
                    />
                  )}
                  {property?.description === AUTO_DECLARED_DESCRIPTION ? (
                    <p className="mt-1 text-xs text-gray-600">Required text input, declared automatically from the template</p>
                  ) : property && inputSchema.required?.includes(name) ? (
                    <p className="mt-1 text-xs text-gray-600">Required</p>
                  ) : null}
                </div>
              );
            })}
          </div>
        )}
        <div className="mt-4 flex flex-wrap items-center gap-3">
          <button type="button" className={primaryButton} onClick={onTest} disabled={testing}>
            {testing ? 'Testing...' : 'Test Prompt'}
          </button>
          <p className="text-sm text-gray-600">
            Tests the prompt as it is now, with the checks a real call makes; nothing is saved. A required input must have a value; a blank optional one uses
            the schema's default, else an empty value.
          </p>
        </div>
        <div className="mt-4 space-y-3" aria-live="polite">
          <FormAlert message={testError} as="p" />
          {result ? <TemplateTestResult result={result} /> : null}
        </div>
      </section>

      <CurlExample slug={slug} saved={saved} inputs={sampleInputs(inputSchema, variables, typedInputs)} />
    </div>
  );
}
