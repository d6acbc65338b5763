// Limits on input and output schemas, checked when they are saved: size, nesting, number of
// properties, and every regular expression anywhere in them (pattern, patternProperties keys)
// must run on the linear-time engine. With them, validating any input against any saved schema is
// fast, and nothing recursive meets a structure deep enough to overflow the stack.
import { invalidParam } from '../platform/errors.ts';
import { unsupportedPatternReason } from '../platform/safe-regex.ts';

export const MAX_SCHEMA_BYTES = 64 * 1024;
export const MAX_SCHEMA_DEPTH = 16;
export const MAX_SCHEMA_PROPERTIES = 100;

export function checkSchemaLimits(schema: object, field: string) {
  if (Object.keys((schema as { properties?: object }).properties ?? {}).length > MAX_SCHEMA_PROPERTIES) {
    throw invalidParam(`${field}.properties`, `must have at most ${MAX_SCHEMA_PROPERTIES} properties`);
  }
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: schema, path: field, depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_SCHEMA_DEPTH) throw invalidParam(path, `must not be nested more than ${MAX_SCHEMA_DEPTH} levels deep`);
    for (const [key, child] of Object.entries(value)) {
      const childPath = `${path}.${key}`;
      if (key === 'pattern' && typeof child === 'string') {
        const reason = unsupportedPatternReason(child);
        if (reason) throw invalidParam(childPath, reason);
      }
      // The "regex" format compiles each input as a backtracking RegExp: slow on hostile input.
      if (key === 'format' && child === 'regex') throw invalidParam(childPath, 'the "regex" format is not supported');
      if (key === 'patternProperties' && child !== null && typeof child === 'object') {
        for (const pattern of Object.keys(child)) {
          const reason = unsupportedPatternReason(pattern);
          if (reason) throw invalidParam(childPath, `"${pattern}" ${reason}`);
        }
      }
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES) throw invalidParam(field, `must be at most ${MAX_SCHEMA_BYTES / 1024} KB`);
}
