// A labelled prompt editor. Monaco is loaded on first use (its own chunk, bundled with the app);
// while it loads the box shows a short message, and if it cannot load a plain text area stands in.
import { Component, lazy, type ReactNode, Suspense } from 'react';
import { inputField } from '@/components/ui/styles';
import type { DeclaredField } from '../lib/template-variables';

const MonacoPromptEditor = lazy(() => import('./monaco-prompt-editor'));

export interface PromptEditorProps {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** The declared input fields, for completion after "{{" and hover help. */
  fields: readonly DeclaredField[];
  /** Pixels. */
  height?: number;
  hint?: ReactNode;
}

class FallbackOnError extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.error('The code editor could not load; using a plain text area', error);
  }

  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

export function PromptEditor({ id, label, value, onChange, fields, height = 200, hint }: PromptEditorProps) {
  const plain = (
    <textarea
      id={id}
      aria-label={label}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      style={{ height }}
      className={`${inputField} font-mono`}
    />
  );
  return (
    <fieldset className="min-w-0">
      <legend id={`${id}-label`} className="block text-sm font-medium text-gray-700">
        {label}
      </legend>
      <div className="mt-1 overflow-hidden rounded-md ring-1 ring-gray-300">
        <FallbackOnError fallback={plain}>
          <Suspense
            fallback={
              <div role="status" style={{ height }} className="flex items-center justify-center text-sm text-gray-500">
                Loading editor...
              </div>
            }
          >
            <MonacoPromptEditor id={id} label={label} value={value} onChange={onChange} fields={fields} height={height} />
          </Suspense>
        </FallbackOnError>
      </div>
      {hint ? (
        <div id={`${id}-hint`} className="mt-1 text-sm text-gray-500">
          {hint}
        </div>
      ) : null}
    </fieldset>
  );
}
