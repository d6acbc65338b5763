// A detail page's Test button: one test at a time, its result or its failure ("Test failed: …"),
// both cleared when a new test starts.
import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';
import { getErrorMessage } from '@/lib/errors';

export function useTestRun<Variables, Result>(test: UseMutationResult<Result, unknown, Variables>) {
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = (variables: Variables) => {
    if (test.isPending) return;
    setError(null);
    setResult(null);
    test.mutate(variables, { onSuccess: setResult, onError: (caught) => setError(`Test failed: ${getErrorMessage(caught)}`) });
  };
  /** Forgets the last result and failure (a rollback or a save made them stale). */
  const clear = () => {
    setResult(null);
    setError(null);
  };
  return { result, error, testing: test.isPending, run, clear, clearResult: () => setResult(null) };
}

/** What a configuration form's Test button and result panel take from its page. */
export interface TestRunProps<Result> {
  onTest: () => void;
  testing: boolean;
  result: Result | null;
  testError: string | null;
}

/** A form's TestRunProps from the page's useTestRun and the function that starts a test. */
export function testRunProps<Result>(test: { testing: boolean; result: Result | null; error: string | null }, onTest: () => void): TestRunProps<Result> {
  return { onTest, testing: test.testing, result: test.result, testError: test.error };
}
