import * as v from 'valibot';
import { maxListedViolations } from '../errors.ts';
import { Quote } from '../model/quote.ts';

/** The quote object of contract section 4 (the routes that quote describe their answers with it). */
export { Quote };

/**
 * What each route tells the OpenAPI document (functions/openapi/document.ts) about itself, beside
 * its request schema: its success responses, the business errors it can answer, and examples from
 * the demo data. Every route keeps this in `functions/<dir>/openapi.ts`; no Lambda but the
 * openapi one imports those modules. The error bodies of contract section 2 are defined here once.
 */

/** Headers the document describes; their meaning is written once, in the generator. */
export type DocumentedHeader =
  | 'x-process-id'
  | 'X-Exchange-Rate-Date'
  | 'Vary'
  | 'Idempotent-Replayed'
  | 'Content-Encoding'
  | 'Content-Disposition'
  | 'ETag';

/** One content type of a response: a JSON body schema, or a text body. */
export type ResponseContent = { json: v.GenericSchema; examples?: Record<string, unknown> } | { text: string; example?: string };

export interface ResponseDoc {
  description: string;
  /** By media type, e.g. `application/json`; absent for a response without a body. */
  content?: Record<string, ResponseContent>;
  /** Headers this response carries besides X-Request-Id (and ETag on 200 GETs, Retry-After on 429/503). */
  headers?: { name: DocumentedHeader; required?: boolean }[];
}

/** Names of the contract section 2 errors (their `type`). */
export type ErrorType = keyof typeof errorBodies;

export interface OperationDocs {
  /** The route's request schema over `{path, query, body}` (the one the handler validates with). */
  request: v.GenericSchema;
  description: string;
  tags: string[];
  /** Success (and other non-error) responses by status code. */
  responses: Record<string, ResponseDoc>;
  /** Business errors the use case may answer; the generator adds the ones every route can answer. */
  errors: ErrorType[];
  /** True when the path names an object of the caller's that may not exist (ObjectDoesNotExist is then a 404). */
  pathObject?: boolean;
  /** True when the operation creates an object under a handle the caller chose: ObjectExists (the handle in use) is then a 409, not a 400. */
  existsIsConflict?: boolean;
  /** Request headers beside Authorization (e.g. Idempotency-Key, Accept). */
  requestHeaders?: { name: string; description: string; example?: string }[];
  /** Example parameter values and bodies from the demo data (the docs page prefills them). */
  examples: {
    path?: Record<string, string>;
    query?: Record<string, string | string[]>;
    body?: Record<string, { summary: string; value: unknown }>;
  };
  /** Named schemas to publish under components/schemas (others are inlined). */
  components?: Record<string, v.GenericSchema>;
  /** False for the routes served without the API-key authorizer. */
  auth?: boolean;
  /** True when the answer is of this moment and is never stored (`Cache-Control: no-store`): a 200 GET without an ETag, and no 304. */
  untagged?: boolean;
  /** True when a route that reads a JSON body also takes none (the body is then optional). */
  optionalBody?: boolean;
}

const Violation = v.strictObject({
  field: v.pipe(v.string(), v.description('The field path: `ns[2]`, `contacts[0].handle`, `currency`.')),
  message: v.string(),
  value: v.optional(v.union([v.string(), v.number(), v.boolean()])),
});

/** At most maxListedViolations of them (issue 18: bounded error bodies). */
const Violations = v.pipe(v.array(Violation), v.maxLength(maxListedViolations));
const OmittedViolations = v.optional(
  v.pipe(
    v.number(),
    v.integer(),
    v.minValue(1),
    v.description(`How many violations beyond the first ${maxListedViolations} are not listed; absent when all are.`),
  ),
);

/** `{type, message, requestId, ...extra}` with `type` fixed. */
function errorBody(type: string, description: string, extra: v.ObjectEntries) {
  return v.pipe(
    v.strictObject({
      type: v.literal(type),
      message: v.pipe(v.string(), v.description('A human sentence; never a stack trace, a key or an auth code.')),
      ...extra,
      requestId: v.pipe(v.string(), v.description('The X-Request-Id of the response.')),
    }),
    v.description(description),
  );
}

/** An error of contract section 2: the status codes it is sent with, what it means, its fields beside type, message and requestId. */
function error(statuses: readonly number[], description: string, fields: v.ObjectEntries = {}) {
  return { statuses, description, fields };
}

/** The errors of contract section 2, by `type`. */
const errors = {
  InvalidMessage: error([400, 415], 'Unparsable JSON, a body that is not an object (400), or a wrong content type (415).'),
  UnrecognizedPropertyException: error([400], 'The body has a property the operation does not define.', {
    property: v.pipe(v.string(), v.description('The first unknown property (a field path).')),
  }),
  ConstraintViolationException: error(
    [400],
    'Fields break their declared type, pattern, length, enum, range or required rule, or a single-valued query parameter is given more than once; every violation is listed, up to 50 (`omittedViolations` counts the rest).',
    { violations: Violations, omittedViolations: OmittedViolations },
  ),
  ValidationError: error([400], 'A well-formed request breaks a business rule.', {
    violations: v.optional(Violations),
    omittedViolations: OmittedViolations,
  }),
  ObjectDoesNotExist: error(
    [400, 404],
    "The object named by the path (404) or referenced in the body (400) does not exist, or is another customer's.",
    { objectType: v.string(), identifier: v.string() },
  ),
  ObjectExists: error(
    [400, 409],
    "The object already exists: a domain in the caller's account or a zone of the name (400), or a contact handle in use (409).",
  ),
  ObjectStatusProhibitsOperation: error([400], "The object's state forbids the operation."),
  PreconditionFailed: error([412], '`If-Match` names a version the object no longer has: another write came first. Read it again.'),
  BillableAcknowledgmentNeededException: error(
    [400],
    'The request has charges that need acknowledgment: send `quote.billables` back in `billables`.',
    { quote: Quote },
  ),
  AuthenticationError: error([401], 'Missing, malformed or unknown API key.'),
  AuthorizationError: error([403], 'The key may not do this (customer mismatch, missing permission).'),
  NotFound: error([404], 'No such route.'),
  MethodNotAllowed: error([405], 'Known path, other method (see the Allow header).'),
  PayloadTooLarge: error([413], 'The body is over 64 KiB.'),
  ResponseTooLarge: error(
    [406],
    'The answer is over the 6 MB it may have uncompressed, and the request accepted no compression: send `Accept-Encoding: gzip`.',
  ),
  TooManyRequests: error([429], 'Rate limit; retry after Retry-After seconds.'),
  InternalError: error([500], 'Anything unexpected; the details are logged with the request id.'),
  ProviderUnavailable: error([503], 'The data store or the registry is unavailable or throttling; safe to retry.'),
};

/** A record with each value mapped, keys kept. */
function mapValues<K extends string, A, B>(record: Record<K, A>, map: (key: K, value: A) => B): Record<K, B> {
  return Object.fromEntries(Object.entries<A>(record).map(([key, value]) => [key, map(key as K, value)])) as Record<K, B>;
}

/** Every error body of contract section 2, by `type`, with the status codes it is sent with. */
export const errorBodies = mapValues(errors, (type, e) => ({ statuses: e.statuses, schema: errorBody(type, e.description, e.fields) }));

/** Errors any authenticated route can answer (the gateway, the authorizer, the boundary). */
export const commonErrors: readonly ErrorType[] = [
  'ResponseTooLarge',
  'AuthenticationError',
  'AuthorizationError',
  'TooManyRequests',
  'InternalError',
  'ProviderUnavailable',
];
/** Errors of every route that takes a JSON body (the body guard and the strict schemas). */
export const bodyErrors: readonly ErrorType[] = [
  'InvalidMessage',
  'UnrecognizedPropertyException',
  'PayloadTooLarge',
  'ConstraintViolationException',
];
