// Issue 61, trap 3: the console shows how an OpenAI client calls the app picked, its variables
// filled as decision 0112 says (the message fills the main text input, the others go as metadata),
// with the values typed in the form, ready to copy.
import { openaiSdkExample } from '@tollbooth/contract';
import { useState } from 'react';
import { secondaryButton } from '@/components/ui/styles';
import { TitledCard } from '@/components/ui/titled-card';
import type { ConsoleInputs } from '../lib/console-inputs';

function sample(type: string, name: string): unknown {
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  if (type === 'object' || type === 'array') return type === 'array' ? [] : {};
  return `example ${name}`;
}

interface OpenAIExampleProps {
  slug: string;
  mode: 'completion' | 'chat';
  inputs: ConsoleInputs;
  values: Record<string, string>;
}

export function OpenAIExample({ slug, mode, inputs, values }: OpenAIExampleProps) {
  const [copied, setCopied] = useState(false);
  if (!slug || !inputs.known) return null;
  const otherInputs: Record<string, unknown> = {};
  for (const field of inputs.formFields) {
    const typed = values[field.name];
    otherInputs[field.name] = typed !== undefined && typed !== '' ? typed : sample(field.type, field.name);
  }
  const code = openaiSdkExample({ slug, mode, userText: 'Hello! What can you do?', otherInputs }, 'YOUR_API_KEY', `${window.location.origin}/v1`);
  async function copy() {
    try {
      await navigator.clipboard.writeText(code);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }
  return (
    <TitledCard
      id="console-openai"
      title="Call it with an OpenAI client"
      action={
        <button type="button" className={`${secondaryButton} px-3 py-1 text-xs`} onClick={() => void copy()} aria-label="Copy OpenAI example">
          {copied ? 'Copied' : 'Copy'}
        </button>
      }
    >
      <p className="mt-1 text-sm text-gray-600">
        {mode === 'chat'
          ? 'The last user message is the query'
          : `The last user message fills ${inputs.textInput ? `{{${inputs.textInput}}}` : 'the main text input'}`}
        {inputs.formFields.length > 0 ? '; the other inputs go in metadata (as text), or in an "inputs" body field for JSON values.' : '.'}
      </p>
      <pre
        data-testid="console-openai-example"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable).
        tabIndex={0}
        className="mt-3 max-h-80 overflow-auto rounded-md bg-gray-900 p-4 text-xs leading-relaxed text-gray-100"
      >
        <code>{code}</code>
      </pre>
    </TitledCard>
  );
}
