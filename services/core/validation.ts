import type * as z from 'zod';
import { validationError, type ValidationIssue } from './errors.ts';

// Translates zod issues into FastAPI/pydantic's HTTPValidationError entries, so that clients
// written for FastAPI services read our 422 bodies without surprises (spec section 2).

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function quoteList(values: readonly unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

function typeIssue(expected: string, input: unknown): Omit<ValidationIssue, 'loc'> {
  if (input === undefined) return { type: 'missing', msg: 'Field required' };
  switch (expected) {
    case 'string':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'int':
    case 'number':
      if (typeof input === 'number') return { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' };
      if (typeof input === 'string') return { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' };
      return { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'boolean':
      return { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'object':
    case 'record':
      return { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' };
    default:
      return { type: `${expected}_type`, msg: `Input should be a valid ${expected}` };
  }
}

function sizeIssue(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, input: unknown): Omit<ValidationIssue, 'loc'> {
  const big = issue.code === 'too_big';
  const bound = Number(big ? (issue as z.core.$ZodIssueTooBig).maximum : (issue as z.core.$ZodIssueTooSmall).minimum);
  if (issue.origin === 'string') {
    const word = bound === 1 ? 'character' : 'characters';
    return big
      ? { type: 'string_too_long', msg: `String should have at most ${bound} ${word}`, ctx: { max_length: bound } }
      : { type: 'string_too_short', msg: `String should have at least ${bound} ${word}`, ctx: { min_length: bound } };
  }
  if (issue.origin === 'array') {
    const length = Array.isArray(input) ? input.length : 0;
    const items = bound === 1 ? 'item' : 'items';
    return big
      ? { type: 'too_long', msg: `List should have at most ${bound} ${items} after validation, not ${length}`, ctx: { field_type: 'List', max_length: bound, actual_length: length } }
      : { type: 'too_short', msg: `List should have at least ${bound} ${items} after validation, not ${length}`, ctx: { field_type: 'List', min_length: bound, actual_length: length } };
  }
  return big
    ? { type: 'less_than_equal', msg: `Input should be less than or equal to ${bound}`, ctx: { le: bound } }
    : { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${bound}`, ctx: { ge: bound } };
}

function translate(issue: z.core.$ZodIssue, input: unknown): Omit<ValidationIssue, 'loc'> {
  switch (issue.code) {
    case 'invalid_type':
      return typeIssue(issue.expected, input);
    case 'too_big':
    case 'too_small':
      return sizeIssue(issue, input);
    case 'invalid_value': {
      const expected = quoteList(issue.values);
      return { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case 'invalid_format':
      if (issue.format === 'regex') {
        const pattern = String((issue as z.core.$ZodIssueInvalidStringFormat).pattern ?? '').replace(/^\/(.*)\/[a-z]*$/, '$1');
        return { type: 'string_pattern_mismatch', msg: `String should match pattern '${pattern}'`, ctx: { pattern } };
      }
      return { type: 'value_error', msg: issue.message };
    case 'unrecognized_keys':
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
    default:
      return { type: 'value_error', msg: issue.message };
  }
}

// zod also reports the safe-integer bound next to the declared one; pydantic names only the declared bound.
function isSafeIntegerNoise(issue: z.core.$ZodIssue): boolean {
  return (issue.code === 'too_big' && Number(issue.maximum) === MAX_SAFE) || (issue.code === 'too_small' && Number(issue.minimum) === -MAX_SAFE);
}

export function toValidationIssues(issues: readonly z.core.$ZodIssue[], root: unknown, locPrefix: (string | number)[]): ValidationIssue[] {
  const seen = new Set<string>();
  const result: ValidationIssue[] = [];
  const relevant = issues.filter((issue) => !isSafeIntegerNoise(issue));
  for (const issue of relevant.length ? relevant : issues) {
    const path = issue.path as (string | number)[];
    const key = JSON.stringify(path);
    if (seen.has(key)) continue; // one entry per field, like pydantic
    seen.add(key);
    const input = path.length ? valueAt(root, path) : root;
    const translated = translate(issue, input);
    const entry: ValidationIssue = { type: translated.type, loc: [...locPrefix, ...path], msg: translated.msg, input: input ?? null };
    if (translated.type === 'missing') entry.input = path.length ? (root ?? null) : null;
    if (translated.ctx) entry.ctx = translated.ctx;
    result.push(entry);
  }
  return result;
}

/** Parses `input` with `schema` or throws a 422 AppError with HTTPValidationError entries under `locPrefix`. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, locPrefix: (string | number)[]): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw validationError(toValidationIssues(parsed.error.issues, input, locPrefix));
}
