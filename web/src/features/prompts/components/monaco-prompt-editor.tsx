// The Monaco side of PromptEditor (loaded lazily): 14 px, no minimap, the light or dark theme
// following the system's colour scheme, and the prompt-template language.
import Editor from '@monaco-editor/react';
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { configureMonaco, DARK_THEME, LIGHT_THEME, PROMPT_LANGUAGE_ID, registerFieldSource } from '../lib/monaco-setup';
import type { DeclaredField } from '../lib/template-variables';

configureMonaco();

const darkQuery = '(prefers-color-scheme: dark)';

function subscribeToColorScheme(onChange: () => void) {
  const query = window.matchMedia?.(darkQuery);
  query?.addEventListener('change', onChange);
  return () => query?.removeEventListener('change', onChange);
}

const prefersDark = () => window.matchMedia?.(darkQuery).matches ?? false;

interface MonacoPromptEditorProps {
  id: string;
  label: string;
  /** The initial text only: see below. */
  value: string;
  onChange: (value: string) => void;
  fields: readonly DeclaredField[];
  height: number;
}

/**
 * The editor owns its text once mounted. Feeding every keystroke back as a controlled value would
 * overwrite keys typed before React re-rendered and move the cursor; the forms never change the
 * text from outside, and a parent that needs to can remount the editor with a new key.
 */
export default function MonacoPromptEditor({ id, label, value, onChange, fields, height }: MonacoPromptEditorProps) {
  const dark = useSyncExternalStore(subscribeToColorScheme, prefersDark);
  const fieldsRef = useRef(fields);
  const unregister = useRef<(() => void) | null>(null);

  useEffect(() => {
    fieldsRef.current = fields;
  }, [fields]);
  useEffect(() => () => unregister.current?.(), []);

  return (
    <Editor
      height={height}
      path={`inmemory://tollbooth/${id}.prompt`}
      language={PROMPT_LANGUAGE_ID}
      theme={dark ? DARK_THEME : LIGHT_THEME}
      defaultValue={value}
      onChange={(next) => onChange(next ?? '')}
      onMount={(editor) => {
        const model = editor.getModel();
        if (model) unregister.current = registerFieldSource(model, () => fieldsRef.current);
      }}
      loading={<span className="text-sm text-gray-500">Loading editor...</span>}
      options={{
        ariaLabel: label,
        fontSize: 14,
        minimap: { enabled: false },
        wordWrap: 'on',
        lineNumbers: 'on',
        scrollBeyondLastLine: false,
        automaticLayout: true,
        fixedOverflowWidgets: true,
        quickSuggestions: false,
        wordBasedSuggestions: 'off',
        suggestOnTriggerCharacters: true,
        renderLineHighlight: 'none',
        tabSize: 2,
      }}
    />
  );
}
