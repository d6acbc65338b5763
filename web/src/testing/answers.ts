// Table tests of a function of one argument: what it answers for each input, checked in one
// assertion (a failure shows every input's answer beside the one expected).
import { expect } from 'vitest';

export function expectAnswers<I, O>(fn: (input: I) => O, inputs: readonly I[], answers: readonly O[]) {
  expect(inputs.map((input) => fn(input))).toEqual(answers);
}
