// Completion app: a form generated from the input schema; the answer streams in as it is written,
// followed by the call's token usage and cost.
import { type FormEvent, useRef, useState } from 'react';
import { app } from './app-description';
import { Fields, initialValues, toInputs } from './fields';
import { ErrorMessage, Layout, UsageLine } from './layout';
import { CallError, callApp, type Usage } from './tollbooth';

export function App() {
  const [values, setValues] = useState(() => initialValues(app.fields));
  const [answer, setAnswer] = useState('');
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const abort = useRef<AbortController | null>(null);

  const run = async (event: FormEvent) => {
    event.preventDefault();
    if (running) return;
    setError(null);
    let inputs: Record<string, unknown>;
    try {
      inputs = toInputs(app.fields, values);
    } catch (invalid) {
      setError((invalid as Error).message);
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    setRunning(true);
    setAnswer('');
    setUsage(null);
    try {
      const result = await callApp('completion', { inputs }, setAnswer, controller.signal);
      setAnswer(result.answer);
      setUsage(result.usage);
    } catch (failure) {
      if (!controller.signal.aborted) setError(failure instanceof CallError ? failure.message : 'Something went wrong. Please try again.');
    } finally {
      setRunning(false);
      abort.current = null;
    }
  };

  return (
    <Layout>
      <form className="card" onSubmit={run} aria-label="Inputs">
        <Fields fields={app.fields} values={values} onChange={setValues} disabled={running} />
        <div className="actions">
          <button type="submit" className="button" disabled={running}>
            {running ? 'Generating…' : 'Generate'}
          </button>
          {running ? (
            <button type="button" className="button button-quiet" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          ) : null}
        </div>
      </form>
      <ErrorMessage message={error} />
      <section className="card answer-card" aria-labelledby="answer-heading" aria-busy={running}>
        <h2 id="answer-heading">Answer</h2>
        <div className="answer" aria-live="polite">
          {answer || <span className="placeholder">{running ? 'Waiting for the first words…' : 'The answer appears here.'}</span>}
        </div>
        <UsageLine usage={usage} />
      </section>
    </Layout>
  );
}
