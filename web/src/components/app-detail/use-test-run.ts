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
