// Regular expressions from users (JSON Schema `pattern`, `patternProperties`) run on RE2JS, a
// linear-time engine with no backtracking: `^(a+)+$` against any input takes time proportional to
// the input, never exponential. Ajv takes it as its regExp engine. Patterns RE2 cannot run
// (lookaround, backreferences) are refused when a schema is saved.
import type { Options } from 'ajv';
import { RE2JS } from 're2js';

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

const compiled = new Map<string, RE2JS>();

function compileLinear(pattern: string): RE2JS {
  let regex = compiled.get(pattern);
  if (!regex) {
    regex = RE2JS.compile(pattern);
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Ajv `code.regExp`: every schema pattern is tested by RE2JS (search semantics, as RegExp.test). */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const regex = compileLinear(pattern);
    return { test: (input: string) => regex.test(input) };
  },
  { code: 'linearRegExp' },
);

/** Why a pattern cannot be used (not valid, or a feature RE2 does not run), or null. */
export function unsupportedPatternReason(pattern: string): string | null {
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'is not a valid regular expression';
  }
  try {
    compileLinear(pattern);
    return null;
  } catch (error) {
    return `uses a feature the linear-time pattern engine (RE2) does not support, such as lookaround or backreferences (${(error as Error).message})`;
  }
}
