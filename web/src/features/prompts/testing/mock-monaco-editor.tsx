// jsdom cannot run Monaco: in component tests the lazily loaded editor is replaced by a text area
// labelled like the real editor. Use with
//   vi.mock('../components/monaco-prompt-editor', () => import('./mock-monaco-editor'));
interface MockEditorProps {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}

export default function MockMonacoEditor({ id, label, value, onChange }: MockEditorProps) {
  return <textarea id={id} aria-label={label} data-testid="mock-monaco" value={value} onChange={(event) => onChange(event.target.value)} />;
}
