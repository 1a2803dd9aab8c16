import * as v from 'valibot';

/**
 * What each route tells the OpenAPI document (functions/openapi/document.ts) about itself, beside
 * its request schema: its success responses, the business errors it can answer, and examples from
 * the demo data. Every route keeps this in `functions/<dir>/openapi.ts`; no Lambda but the
 * openapi one imports those modules. The error bodies of contract section 2 are defined here once.
 */

/** Headers the document describes; their meaning is written once, in the generator. */
export type DocumentedHeader = 'x-process-id' | 'X-Exchange-Rate-Date' | 'Vary' | 'Idempotent-Replayed';

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
  /** Request headers beside Authorization (e.g. Idempotency-Key, Accept). */
  requestHeaders?: { name: string; description: string; example?: string }[];
  /** Example parameter values and bodies from the demo data (the docs page prefills them). */
  examples: {
    path?: Record<string, string>;
    query?: Record<string, string>;
    body?: Record<string, { summary: string; value: unknown }>;
  };
  /** Named schemas to publish under components/schemas (others are inlined). */
  components?: Record<string, v.GenericSchema>;
  /** False for the routes served without the API-key authorizer. */
  auth?: boolean;
}

const Violation = v.strictObject({
  field: v.pipe(v.string(), v.description('The field path: `ns[2]`, `contacts[0].handle`, `currency`.')),
  message: v.string(),
  value: v.optional(v.union([v.string(), v.number(), v.boolean()])),
});

const BillableLine = v.strictObject({
  product: v.string(),
  action: v.string(),
  quantity: v.pipe(v.number(), v.integer()),
  amount: v.pipe(v.number(), v.integer(), v.description('Cents per unit.')),
  refundable: v.boolean(),
  total: v.pipe(v.number(), v.integer(), v.description('`quantity * amount`, in cents.')),
});

/** The quote object of contract section 4; `currency` and `billables` are left out when `total` is 0. */
export const Quote = v.strictObject({
  total: v.pipe(v.number(), v.integer(), v.description('Cents.')),
  currency: v.optional(v.string()),
  billables: v.optional(v.array(BillableLine)),
});

/** `{type, message, requestId, ...extra}` with `type` fixed. */
function errorBody<T extends string, E extends v.ObjectEntries>(type: T, description: string, extra: E) {
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

/** Every error body of contract section 2, by `type`, with the status codes it is sent with. */
export const errorBodies = {
  InvalidMessage: {
    statuses: [400, 415],
    schema: errorBody('InvalidMessage', 'Unparsable JSON, a body that is not an object (400), or a wrong content type (415).', {}),
  },
  UnrecognizedPropertyException: {
    statuses: [400],
    schema: errorBody('UnrecognizedPropertyException', 'The body has a property the operation does not define.', {
      property: v.pipe(v.string(), v.description('The first unknown property (a field path).')),
    }),
  },
  ConstraintViolationException: {
    statuses: [400],
    schema: errorBody(
      'ConstraintViolationException',
      'Fields break their declared type, pattern, length, enum, range or required rule; every violation is listed.',
      {
        violations: v.array(Violation),
      },
    ),
  },
  ValidationError: {
    statuses: [400],
    schema: errorBody('ValidationError', 'A well-formed request breaks a business rule.', { violations: v.optional(v.array(Violation)) }),
  },
  ObjectDoesNotExist: {
    statuses: [400, 404],
    schema: errorBody(
      'ObjectDoesNotExist',
      "The object named by the path (404) or referenced in the body (400) does not exist, or is another customer's.",
      {
        objectType: v.string(),
        identifier: v.string(),
      },
    ),
  },
  ObjectExists: { statuses: [400], schema: errorBody('ObjectExists', "The domain is already in the caller's account.", {}) },
  ObjectStatusProhibitsOperation: {
    statuses: [400],
    schema: errorBody('ObjectStatusProhibitsOperation', "The object's state forbids the operation.", {}),
  },
  BillableAcknowledgmentNeededException: {
    statuses: [400],
    schema: errorBody(
      'BillableAcknowledgmentNeededException',
      'The request has charges that need acknowledgment: send `quote.billables` back in `billables`.',
      {
        quote: Quote,
      },
    ),
  },
  AuthenticationError: { statuses: [401], schema: errorBody('AuthenticationError', 'Missing, malformed or unknown API key.', {}) },
  AuthorizationError: {
    statuses: [403],
    schema: errorBody('AuthorizationError', 'The key may not do this (customer mismatch, missing permission).', {}),
  },
  NotFound: { statuses: [404], schema: errorBody('NotFound', 'No such route.', {}) },
  MethodNotAllowed: { statuses: [405], schema: errorBody('MethodNotAllowed', 'Known path, other method (see the Allow header).', {}) },
  PayloadTooLarge: { statuses: [413], schema: errorBody('PayloadTooLarge', 'The body is over 64 KiB.', {}) },
  TooManyRequests: { statuses: [429], schema: errorBody('TooManyRequests', 'Rate limit; retry after Retry-After seconds.', {}) },
  InternalError: {
    statuses: [500],
    schema: errorBody('InternalError', 'Anything unexpected; the details are logged with the request id.', {}),
  },
  ProviderUnavailable: {
    statuses: [503],
    schema: errorBody('ProviderUnavailable', 'The data store or the registry is unavailable or throttling; safe to retry.', {}),
  },
} as const;

/** Errors any authenticated route can answer (the gateway, the authorizer, the boundary). */
export const commonErrors: readonly ErrorType[] = [
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
