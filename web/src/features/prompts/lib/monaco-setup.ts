// Monaco, bundled with the app (never fetched from a CDN): only the editor core and the features
// the prompt editors use, the editor worker built by Vite, and the `prompt-template` language —
// {{variable}} highlighting, completion of the declared input fields after "{{" and hover help.
// Imported only by the lazily loaded editor component, so Monaco is its own chunk.
import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor/editor';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import 'monaco-editor/features/codicon/register';
import 'monaco-editor/editor/browser/widget/codeEditor/codeEditorWidget';
import 'monaco-editor/editor/contrib/bracketMatching/browser/bracketMatching';
import 'monaco-editor/editor/contrib/clipboard/browser/clipboard';
import 'monaco-editor/editor/contrib/contextmenu/browser/contextmenu';
import 'monaco-editor/editor/contrib/cursorUndo/browser/cursorUndo';
import 'monaco-editor/editor/contrib/find/browser/findController';
import 'monaco-editor/editor/contrib/hover/browser/hoverContribution';
import 'monaco-editor/editor/contrib/linesOperations/browser/linesOperations';
import 'monaco-editor/editor/contrib/multicursor/browser/multicursor';
import 'monaco-editor/editor/contrib/placeholderText/browser/placeholderText.contribution';
import 'monaco-editor/editor/contrib/snippet/browser/snippetController2';
import 'monaco-editor/editor/contrib/suggest/browser/suggestController';
import 'monaco-editor/editor/contrib/wordOperations/browser/wordOperations';
import { completionContext, type DeclaredField, describeVariable, variableAt } from './template-variables';

export const PROMPT_LANGUAGE_ID = 'prompt-template';
export const LIGHT_THEME = 'tollbooth-light';
export const DARK_THEME = 'tollbooth-dark';

// Completion and hover providers are registered once per language; each editor registers where its
// model's declared fields come from, keyed by the model's URI.
const fieldSources = new Map<string, () => readonly DeclaredField[]>();

export function registerFieldSource(model: monaco.editor.ITextModel, source: () => readonly DeclaredField[]): () => void {
  const key = model.uri.toString();
  fieldSources.set(key, source);
  return () => {
    if (fieldSources.get(key) === source) fieldSources.delete(key);
  };
}

const fieldsOf = (model: monaco.editor.ITextModel) => fieldSources.get(model.uri.toString())?.() ?? [];

let configured = false;

/** Registers the worker, the language, the themes and the providers, once. */
export function configureMonaco() {
  if (configured) return;
  configured = true;

  self.MonacoEnvironment = { getWorker: () => new EditorWorker() };
  loader.config({ monaco });

  monaco.languages.register({ id: PROMPT_LANGUAGE_ID });
  monaco.languages.setMonarchTokensProvider(PROMPT_LANGUAGE_ID, {
    tokenizer: {
      root: [
        [/\{\{\s*\w+\s*\}\}/, 'variable'],
        [/\{\{|\}\}/, 'invalid'],
        [/[^{}]+/, ''],
        [/[{}]/, ''],
      ],
    },
  });
  monaco.languages.setLanguageConfiguration(PROMPT_LANGUAGE_ID, { wordPattern: /\w+/g });

  monaco.editor.defineTheme(LIGHT_THEME, {
    base: 'vs',
    inherit: true,
    rules: [
      { token: 'variable', foreground: '4f46e5', fontStyle: 'bold' },
      { token: 'invalid', foreground: 'dc2626' },
    ],
    colors: {},
  });
  monaco.editor.defineTheme(DARK_THEME, {
    base: 'vs-dark',
    inherit: true,
    rules: [
      { token: 'variable', foreground: 'a5b4fc', fontStyle: 'bold' },
      { token: 'invalid', foreground: 'f87171' },
    ],
    colors: {},
  });

  monaco.languages.registerCompletionItemProvider(PROMPT_LANGUAGE_ID, {
    triggerCharacters: ['{'],
    provideCompletionItems(model, position) {
      const context = completionContext(model.getLineContent(position.lineNumber), position.column);
      if (!context) return { suggestions: [] };
      const range = new monaco.Range(position.lineNumber, context.startColumn, position.lineNumber, context.endColumn);
      return {
        suggestions: fieldsOf(model).map((field) => ({
          label: field.name,
          kind: monaco.languages.CompletionItemKind.Variable,
          detail: `${field.type}${field.required ? ', required' : ''}`,
          documentation: field.description || undefined,
          insertText: context.closed ? field.name : `${field.name}}}`,
          range,
        })),
      };
    },
  });

  monaco.languages.registerHoverProvider(PROMPT_LANGUAGE_ID, {
    provideHover(model, position) {
      const found = variableAt(model.getLineContent(position.lineNumber), position.column);
      if (!found) return null;
      return {
        range: new monaco.Range(position.lineNumber, found.startColumn, position.lineNumber, found.endColumn),
        contents: [{ value: describeVariable(found.name, fieldsOf(model)) }],
      };
    },
  });
}

export { monaco };
