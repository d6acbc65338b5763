// Weak passwords are refused at sign-up with the estimator's own reason: zxcvbn-ts (dictionaries of
// common passwords, words and names, keyboard patterns, dates, repeats), with the email and display
// name as words an attacker would try first.
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as commonDictionary } from '@zxcvbn-ts/language-common';
import { dictionary as englishDictionary, translations } from '@zxcvbn-ts/language-en';

/** zxcvbn scores 0–4; 3 is "safely unguessable: moderate protection from offline slow-hash scenario". */
export const MIN_PASSWORD_SCORE = 3;

let estimator: ZxcvbnFactory | null = null;
const getEstimator = () => {
  estimator ??= new ZxcvbnFactory({ dictionary: { ...commonDictionary, ...englishDictionary }, graphs: adjacencyGraphs, translations });
  return estimator;
};

/** Null when the password is strong enough, else a sentence saying why not and what helps. */
export function weakPasswordReason(password: string, personal: string[]): string | null {
  const inputs = personal.flatMap((value) => [value, ...value.split(/[@.\s_+-]+/)]).filter((value) => value.length >= 3);
  // The estimator's cost grows with length; beyond 100 characters any password is long enough.
  const result = getEstimator().check(password.slice(0, 100), inputs);
  if (result.score >= MIN_PASSWORD_SCORE) return null;
  const warning = result.feedback.warning ? `${result.feedback.warning.replace(/\.?$/, '.')} ` : '';
  const suggestion = result.feedback.suggestions[0] ?? 'Add more words or characters that are less common.';
  return `This password is too easy to guess. ${warning}${suggestion}`;
}
