import * as v from 'valibot';
import { ConstraintViolation, UnrecognizedProperty, type Violation } from '../errors.ts';
import { isSecretKey } from '../logger.ts';

/**
 * Whether a violation's field is one whose value is never echoed back, in `value` or in the message:
 * a secret (contract section 2: auth codes, and every field the logs redact: CSRs, phone numbers,
 * keys), or a DNSSEC public key (long, and of no use quoted back). Any segment of the path counts.
 */
function unspeakable(field: string): boolean {
  return field.split(/[.[\]]/).some((segment) => segment === 'publicKey' || isSecretKey(segment));
}

/** Contract section 1: leading and trailing whitespace of every string value is trimmed. */
export function trimStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) return value.map(trimStrings);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: trimStrings(val), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** A valibot issue path as the contract's field path: `ns[2]`, `contacts[0].handle`. */
function fieldPath(issue: v.BaseIssue<unknown>): string {
  const keys = (issue.path ?? []).map((item) => item.key as string | number);
  // The first key says where the value came from (path, query, body); the contract names the field only.
  const rest = keys.slice(1);
  let out = '';
  for (const key of rest) out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  // A property may be named '' (found by fuzzing): only a path without keys falls back to its source.
  return rest.length > 0 ? out : String(keys[0] ?? 'body');
}

/** valibot's own messages (`Invalid type: Expected string but received 98765432`) quote the value. */
const defaultMessage = /^Invalid (type|key|value|length): /;

function describe(issue: v.BaseIssue<unknown>, secret: boolean): string {
  if (issue.input === undefined && issue.kind === 'schema') return 'is required';
  // Contract section 1: null stands for "absent" only where a field may be absent.
  if (issue.input === null && issue.kind === 'schema') return 'must not be null';
  if (secret && defaultMessage.test(issue.message)) return issue.expected ? `expected ${issue.expected}` : 'is not valid';
  return issue.message.replace(defaultMessage, '').replace(/^Expected/, 'expected');
}

function echo(secret: boolean, input: unknown): Pick<Violation, 'value'> {
  if (secret) return {};
  if (typeof input === 'number' || typeof input === 'boolean') return { value: input };
  if (typeof input === 'string' && input.length <= 100) return { value: input };
  return {};
}

type Entries = Record<string, v.GenericSchema & { wrapped?: v.GenericSchema }>;

/**
 * The query parameters a request schema declares single-valued: every one it declares but as a
 * list. A parameter given more than once where one value is expected is ambiguous (contract
 * section 1); one it does not declare is ignored, however often it comes.
 */
function singleValued(schema: v.GenericSchema, repeated: ReadonlyMap<string, number>): Violation[] {
  const query = (schema as { entries?: Entries }).entries?.query as { entries?: Entries } | undefined;
  const declared = query?.entries ?? {};
  const violations: Violation[] = [];
  for (const [name, count] of repeated) {
    const parameter = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (parameter === undefined || (parameter.wrapped ?? parameter).type === 'array') continue;
    violations.push({ field: name, message: `must be given once, not ${count} times` });
  }
  return violations;
}

/**
 * Validates path, query and body together and reports every violation at once (architecture
 * practice 4), a single-valued query parameter given more than once among them (`repeated`: the
 * parameters given more than once, with how often). An unknown body property is its own error
 * (contract section 2).
 */
export function validateRequest<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  repeated: ReadonlyMap<string, number> = new Map(),
): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  const ambiguous = singleValued(schema, repeated);
  if (result.success && ambiguous.length === 0) return result.output;
  const issues = result.success ? [] : result.issues;
  const unknown = issues.find((issue) => issue.type === 'strict_object' && issue.expected === 'never');
  if (unknown) throw new UnrecognizedProperty(fieldPath(unknown));
  const violations: Violation[] = issues.map((issue) => {
    const field = fieldPath(issue);
    const secret = unspeakable(field);
    return { field, message: describe(issue, secret), ...echo(secret, issue.input) };
  });
  throw new ConstraintViolation([...ambiguous, ...violations]);
}
