/**
 * The one error hierarchy of the service (contract section 2). Use cases throw these; the HTTP
 * boundary (shared/http/pipeline.ts) is the only place that turns them into responses.
 */

/** One violated rule, named by its field path (`ns[2]`, `contacts[0].handle`). */
export interface Violation {
  field: string;
  message: string;
  value?: string | number | boolean;
}

/** Base class: `type` and `status` go on the wire; `expose` is false for 5xx (generic message). */
export class AppError extends Error {
  readonly type: string;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  get expose(): boolean {
    return this.status < 500;
  }
  constructor(type: string, status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = type;
    this.type = type;
    this.status = status;
    this.extra = extra;
    this.headers = headers;
  }
}

/** What a caller without a valid key is told; API Gateway's own answer says the same (shared/http/gateway-responses.ts). */
export const unauthenticatedMessage = 'Missing, malformed or unknown API key. Send the header `Authorization: ApiKey <key>`.';
/** The challenge a 401 carries (`WWW-Authenticate`, RFC 9110 11.6.1), ours and API Gateway's alike: the scheme of contract section 1. */
export const authenticationChallenge = { 'WWW-Authenticate': 'ApiKey' } as const;
/** What a throttled caller is told, by us and by API Gateway alike. */
export const throttledMessage = 'Too many requests for this API key; retry later.';

export class InvalidMessage extends AppError {
  constructor(message: string, status = 400) {
    super('InvalidMessage', status, message);
  }
}

export class UnrecognizedProperty extends AppError {
  constructor(property: string) {
    super('UnrecognizedPropertyException', 400, `Unrecognized property '${property}'.`, { property });
  }
}

/**
 * How many violations an error body lists (issue 18: bounded error bodies). A hostile body can break
 * a rule thousands of times; the answer names the first ones and counts the rest.
 */
export const maxListedViolations = 50;

/** The `violations` of an error body: at most maxListedViolations, and `omittedViolations` counting the rest. */
function listed(violations: Violation[]): { violations: Violation[]; omittedViolations?: number } {
  if (violations.length <= maxListedViolations) return { violations };
  return { violations: violations.slice(0, maxListedViolations), omittedViolations: violations.length - maxListedViolations };
}

export class ConstraintViolation extends AppError {
  constructor(violations: Violation[]) {
    super('ConstraintViolationException', 400, summarise(violations), listed(violations));
  }
}

/** A well-formed request that breaks a business rule. */
export class ValidationError extends AppError {
  constructor(message: string, violations?: Violation[]) {
    super('ValidationError', 400, message, violations ? listed(violations) : {});
  }
}

/**
 * An object that does not exist, or exists for another customer (both answer alike, so existence
 * does not leak). 404 when the path names it, 400 when the body refers to it.
 */
export class ObjectDoesNotExist extends AppError {
  constructor(objectType: string, identifier: string, where: 'path' | 'body' = 'path') {
    super('ObjectDoesNotExist', where === 'path' ? 404 : 400, `${objectType} '${identifier}' does not exist.`, { objectType, identifier });
  }
}

/** An object that exists already: 400 (a domain already in the account), or 409 where the real API answers so (a contact handle in use). */
export class ObjectExists extends AppError {
  constructor(message: string, status: 400 | 409 = 400) {
    super('ObjectExists', status, message);
  }
}

export class ObjectStatusProhibitsOperation extends AppError {
  constructor(message: string) {
    super('ObjectStatusProhibitsOperation', 400, message);
  }
}

/**
 * A write's `If-Match` names a version the object no longer has (RFC 9110 13.1.1): another write
 * came first. The caller reads the object again (its new ETag) and decides.
 */
export class PreconditionFailed extends AppError {
  constructor(message: string) {
    super('PreconditionFailed', 412, message);
  }
}

export class BillableAcknowledgmentNeeded extends AppError {
  constructor(
    quote: unknown,
    message = 'This request has charges that need acknowledgment: send the quoted billables back in `billables`.',
  ) {
    super('BillableAcknowledgmentNeededException', 400, message, { quote });
  }
}

export class AuthenticationError extends AppError {
  constructor(message = unauthenticatedMessage) {
    super('AuthenticationError', 401, message, {}, { ...authenticationChallenge });
  }
}

export class AuthorizationError extends AppError {
  constructor(message: string) {
    super('AuthorizationError', 403, message);
  }
}

export class NotFound extends AppError {
  constructor(path: string) {
    super('NotFound', 404, `No route for '${path}'.`);
  }
}

export class MethodNotAllowed extends AppError {
  constructor(method: string, allow: string[]) {
    const allowed = allow.join(', ');
    super('MethodNotAllowed', 405, `Method ${method} is not allowed here; allowed: ${allowed}.`, {}, { Allow: allowed });
  }
}

export class PayloadTooLarge extends AppError {
  constructor(limit: number) {
    super('PayloadTooLarge', 413, `The request body is larger than ${limit} bytes.`);
  }
}

/**
 * An answer too large to send uncompressed (Lambda's 6 MB response limit) to a client that accepts
 * no compression: 406, saying how to get it (a decision of docs/pricelist-and-zones.md).
 */
export class ResponseTooLarge extends AppError {
  constructor(bytes: number) {
    super(
      'ResponseTooLarge',
      406,
      `This answer is ${(bytes / 1_048_576).toFixed(1)} MB, more than the 6 MB an uncompressed answer may have. Send \`Accept-Encoding: gzip\` (or br) to receive it compressed; both official clients do.`,
    );
  }
}

export class TooManyRequests extends AppError {
  constructor(retryAfterSeconds: number) {
    super('TooManyRequests', 429, throttledMessage, {}, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class ProviderUnavailable extends AppError {
  constructor(message = 'A backing service is unavailable or throttling; retry later.', retryAfterSeconds = 1) {
    super('ProviderUnavailable', 503, message, {}, { 'Retry-After': String(retryAfterSeconds) });
  }
}

function summarise(violations: Violation[]): string {
  const first = violations[0];
  if (!first) return 'The request violates a constraint.';
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  return `${first.field}: ${first.message}${more}`;
}
