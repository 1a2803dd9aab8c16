import { createHash, randomUUID } from 'node:crypto';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { type Principal, principalFromContext } from '../auth/principal.ts';
import { type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { AppError, AuthenticationError, InvalidMessage, ProviderUnavailable, ResponseTooLarge } from '../errors.ts';
import { isSecretKey, logger, redactValues, withRequestSecrets } from '../logger.ts';
import { type Coding, chooseCoding, compressAbove } from './encoding.ts';
import { encodedResult, lambdaResponseLimit, ok, precodedResult, type Reply, resultBytes, serializeBody, toResult } from './response.ts';
import { trimStrings, validateRequest } from './validation.ts';

/** Contract section 1 / issue 2: request bodies are limited to 64 KiB. */
export const maxBodyBytes = 64 * 1024;
/** How deeply a request body may nest arrays and objects (the deepest valid body nests 3 levels). */
export const maxBodyDepth = 32;

/** What a handler receives: the validated input, the caller, and the request's headers (lower-case). */
export interface ApiRequest<I> {
  input: I;
  principal: Principal;
  requestId: string;
  headers: Record<string, string>;
  /** The time the function has left (ms), from its Lambda context: whatever waits stops in time to answer. */
  remainingMs?: () => number;
}

export interface EndpointOptions<S extends v.GenericSchema> {
  /** The route id (from the route table), used in logs. */
  route: string;
  /** One schema over `{path, query, body}`; the body part should be a strictObject. */
  request: S;
  /**
   * The route takes a JSON body (POST): `jsonBody` from shared/http/json-body.ts, the content-type,
   * size, depth and JSON checks and the parser. A separate module, so GET bundles carry none of it.
   */
  body?: JsonBody;
  /**
   * The caller's authorization that needs no table read (the customer named in the body, a
   * permission an option requires): run before anything else of the route, a replay included, so an
   * Idempotency-Key never answers a caller what it may not do itself. The use case checks again.
   */
  authorize?: (request: ApiRequest<v.InferOutput<S>>) => void;
  /**
   * Idempotency-Key handling of a state-changing route: `idempotency(...)` from
   * shared/http/idempotency.ts, applied here around the use case and its answer (a separate module,
   * so the routes without it carry none of it).
   */
  idempotency?: Idempotency<v.InferOutput<S>>;
  /**
   * The route reads every value of a repeated query parameter (a list's filters, `fields`,
   * `order`): the query part of its input then holds a list of strings per parameter, from the
   * event's multi-value query. Other routes see one string per parameter.
   */
  repeatedQuery?: boolean;
}

/**
 * Runs a request's use case at most once per Idempotency-Key (see shared/http/idempotency.ts).
 * `run` takes what the use case must commit with its outcome (the key's record, holding the
 * answer `respond` makes of that outcome).
 */
export interface Idempotency<I> {
  around<R>(request: ApiRequest<I>, run: (commitWith: CommitWith<R>) => Promise<R>, respond: (outcome: R) => Reply): Promise<Reply>;
}

/** The middleware that reads a JSON body, run after authentication and before validation. */
export type JsonBody = MiddlewareObj<Event, APIGatewayProxyResult, Error, ApiContext>;

interface State {
  requestId: string;
  started: number;
  headers: Record<string, string>;
  principal?: Principal;
  input?: unknown;
}

type Event = APIGatewayProxyEvent;
type ApiContext = Context & { state?: State };

/** The pipeline's state of a request (set by the boundary, first of the chain). */
export function state(request: { context: ApiContext }): State {
  const s = request.context.state;
  if (!s) throw new Error('pipeline state missing');
  return s;
}

/**
 * The boundary: request id, the closing log line, ETags, and the single mapping of errors to the
 * contract's error bodies (architecture practice 2). Registered first, so its after/onError run last.
 */
function boundary(route: string): MiddlewareObj<Event, APIGatewayProxyResult, Error, ApiContext> {
  const finish = (request: { event: Event; context: ApiContext }, reply: Reply): APIGatewayProxyResult => {
    const s = state(request);
    const result = answer(request.event, s, reply);
    // HEAD (contract section 1): the GET's status and headers, Content-Type included, and no body.
    if (request.event.httpMethod === 'HEAD') result.body = '';
    const durationMs = Date.now() - s.started;
    logger.info('request', {
      route,
      method: request.event.httpMethod,
      status: result.statusCode,
      customer: s.principal?.customer,
      user: s.principal?.user,
      durationMs,
    });
    return result;
  };
  return {
    before: (request) => {
      const headers: Record<string, string> = {};
      for (const [k, val] of Object.entries(request.event.headers ?? {})) if (val !== undefined) headers[k.toLowerCase()] = val;
      const requestId = request.event.requestContext?.requestId || randomUUID();
      request.context.state = { requestId, started: Date.now(), headers };
      redactValues(apiKeyValuesOf(headers));
      logger.appendKeys({ requestId, route });
    },
    after: (request) => {
      request.response = finish(request, request.response as unknown as Reply);
    },
    onError: (request) => {
      const error = request.error;
      request.context.state ??= { requestId: randomUUID(), started: Date.now(), headers: {} };
      const appError = toAppError(error);
      if (appError.status >= 500) {
        logger.error('request failed', { route, errorType: appError.type, error: error as Error });
      }
      const s = state(request);
      const body: Record<string, unknown> = { type: appError.type, message: appError.message, ...appError.extra, requestId: s.requestId };
      request.response = finish(request, { status: appError.status, body, headers: appError.headers });
    },
  };
}

/** The API key of a request, as sent and bare: redacted from every log line before anything runs. */
function apiKeyValuesOf(headers: Record<string, string>): string[] {
  const authorization = headers.authorization;
  return authorization ? [authorization, authorization.replace(/^ApiKey\s+/i, '')] : [];
}

/**
 * The secret fields of a parsed body, at any depth (CSRs line by line too). Collected from the body
 * the parser already produced, so the body is parsed once; nothing that could quote a body value
 * (a use case's error) runs before they are registered.
 */
function secretValuesOf(body: unknown): string[] {
  const out: string[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (depth > maxBodyDepth || !node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === 'string' && isSecretKey(key)) out.push(value.trim(), ...value.split(/\r?\n/).map((l) => l.trim()));
      else visit(value, depth + 1);
    }
  };
  visit(body, 0);
  return out;
}

/** Maps anything thrown to an AppError; only our own errors are exposed. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isTransient(error)) return new ProviderUnavailable();
  return new AppError('InternalError', 500, 'An internal error occurred; it has been logged with the request id.');
}

const transientNames = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
  'TransactionInProgressException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const transientCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);
const transientReasons = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

/** A data-store failure that a retry may cure (throttling, time-outs, 5xx, conflicts): 503. */
export function isTransient(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as {
    name?: string;
    code?: string;
    $fault?: string;
    $retryable?: unknown;
    CancellationReasons?: { Code?: string }[];
  };
  if (e.name && transientNames.has(e.name)) return true;
  if (e.code && transientCodes.has(e.code)) return true;
  if (e.$fault === 'server' || e.$retryable) return true;
  if (e.name === 'TransactionCanceledException') {
    return (e.CancellationReasons ?? []).some((r) => r.Code !== undefined && transientReasons.has(r.Code));
  }
  return false;
}

/**
 * The reply as the Lambda result: serialized once, tagged (ETag, 304), compressed when the client
 * accepts it and the body is over 1 KB (shared/http/encoding.ts), and within Lambda's 6 MB
 * response limit: an answer over it goes out as 406 ResponseTooLarge to a client that accepts no
 * compression (and as a logged 500 if even compressed it is too large), never as a failed invocation.
 */
function answer(event: Event, s: State, reply: Reply): APIGatewayProxyResult {
  const precoded = reply.precoded;
  const text = precoded !== undefined || reply.body === undefined ? undefined : serializeBody(reply);
  const size = precoded !== undefined ? precoded.bytes : text?.length;
  const coding = size !== undefined && size >= compressAbove && !reply.binary ? chooseCoding(s.headers['accept-encoding']) : undefined;
  const digest = precoded !== undefined ? () => precoded.sha256 : text === undefined ? undefined : () => digestOf(reply, text);
  const tagged = withEtag(event, s, reply, digest, coding);
  const result =
    tagged.precoded !== undefined
      ? precodedResult(tagged, tagged.precoded, coding, s.requestId)
      : tagged.body === undefined
        ? toResult(tagged, s.requestId)
        : encodedResult(tagged, text as string, coding, s.requestId);
  const bytes = resultBytes(result);
  if (bytes <= lambdaResponseLimit) return result;
  if (coding !== undefined) logger.error('answer too large even compressed', { bytes, coding });
  const error = coding === undefined ? new ResponseTooLarge(bytes) : toAppError(new Error('answer too large'));
  const body = { type: error.type, message: error.message, requestId: s.requestId };
  return toResult({ status: error.status, body, headers: { Vary: 'Accept-Encoding' } }, s.requestId);
}

/** SHA-256 (base64url) of a body as sent before any coding, after its content type when it is not JSON. */
function digestOf(reply: Reply, text: string): string {
  const hash = createHash('sha256');
  if (reply.contentType !== undefined) hash.update(`${reply.contentType}\n`);
  return hash.update(text).digest('base64url');
}

/**
 * Strong ETag over the body of a 200 GET, as sent before any coding, its content type and its
 * coding (so two representations of one resource, JSON and zone file, plain and compressed,
 * never share a tag); `If-None-Match` with it answers 304, no body. A reply that says
 * `Cache-Control: no-store` itself (GET /v2/health: a state of this moment) is never stored, so it
 * gets no validator either. A precoded body's digest is the one stored with it, of the same text.
 */
function withEtag(event: Event, s: State, reply: Reply, digest: (() => string) | undefined, coding: Coding | undefined): Reply {
  if ((event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD') || reply.status !== 200 || digest === undefined) return reply;
  if (reply.headers?.['Cache-Control'] === 'no-store') return reply;
  const hashed = digest().slice(0, 27);
  const tag = reply.version === undefined ? hashed : `${reply.version}.${hashed}`;
  const etag = `"${coding === undefined ? tag : `${tag}-${coding}`}"`;
  const headers = { ...reply.headers, ETag: etag };
  if (noneMatch(s.headers['if-none-match'], etag)) return { status: 304, headers };
  return { ...reply, headers };
}

/**
 * Whether `If-None-Match` matches the current tag (RFC 9110 13.1.2): `*`, or any listed tag by
 * weak comparison, which ignores the `W/` prefix on either side.
 */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  return header.split(',').some((listed) => {
    const tag = listed.trim();
    return tag === '*' || opaque(tag) === opaque(etag);
  });
}

/**
 * The versions an `If-Match` header names (RFC 9110 13.1.1): of each listed tag of a versioned
 * ETag (`"r12.<hash>"` of a read, Reply.version; `"r12"` of a write's answer) the version; `*` for
 * any. Undefined without the header. A tag that names no version matches nothing.
 */
export function versionsOf(header: string | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  return header
    .split(',')
    .slice(0, 20)
    .map((listed) => listed.trim().replace(/^W\//, ''))
    .map((tag) => (tag === '*' ? '*' : /^"([A-Za-z0-9]{1,24})(?:\.[^"]*)?"$/.exec(tag)?.[1]))
    .filter((version): version is string => version !== undefined);
}

/** The caller, as the API Gateway authorizer (or the local gateway running it) put it in the event. */
function authenticate(): MiddlewareObj<Event, APIGatewayProxyResult, Error, ApiContext> {
  return {
    before: (request) => {
      const principal = principalFromContext(request.event.requestContext?.authorizer);
      if (!principal) throw new AuthenticationError();
      state(request).principal = principal;
      logger.appendKeys({ customer: principal.customer });
    },
  };
}

function validate<S extends v.GenericSchema>(
  schema: S,
  hasBody: boolean,
  repeatedQuery: boolean,
): MiddlewareObj<Event, APIGatewayProxyResult, Error, ApiContext> {
  return {
    before: (request) => {
      const { event } = request;
      const body: unknown = hasBody ? event.body : undefined;
      if (hasBody && (body === null || typeof body !== 'object' || Array.isArray(body))) {
        throw new InvalidMessage('The request body must be a JSON object.');
      }
      if (hasBody) redactValues(secretValuesOf(body));
      state(request).input = validateRequest(
        schema,
        {
          path: trimStrings(event.pathParameters ?? {}),
          query: trimStrings((repeatedQuery ? event.multiValueQueryStringParameters : event.queryStringParameters) ?? {}),
          body: hasBody ? trimStrings(body) : undefined,
        },
        repeatedQuery ? new Map() : repeatedParameters(event.multiValueQueryStringParameters),
      );
    },
  };
}

/**
 * Query parameters given more than once, with how often. API Gateway puts the last value in
 * `queryStringParameters` and all of them in `multiValueQueryStringParameters`: only the latter tells.
 */
function repeatedParameters(multi: Event['multiValueQueryStringParameters']): Map<string, number> {
  const repeated = new Map<string, number>();
  for (const [name, values] of Object.entries(multi ?? {})) if (values && values.length > 1) repeated.set(name, values.length);
  return repeated;
}

/**
 * Events carry the API key, auth codes, CSRs and phone numbers inside strings the log redaction
 * cannot see into: never log them, whatever POWERTOOLS_LOGGER_LOG_EVENT says.
 */
const neverLogEvents = { resetKeys: true, logEvent: false } as const;

/**
 * Builds a Lambda handler for one route: request id -> authentication -> JSON body -> validation
 * -> authorization -> the use case (once per Idempotency-Key where the route says so) -> its
 * answer, with one error mapping at the boundary. Handlers stay thin: `run` calls one use case,
 * passing on `commitWith` where the use case records its outcome in a transaction; `respond` says
 * how its result is answered (status, headers, body: shared/http/response.ts has the shared ones;
 * default 200 with the result as the JSON body).
 */
export function endpoint<S extends v.GenericSchema, R>(
  options: EndpointOptions<S>,
  run: (request: ApiRequest<v.InferOutput<S>>, commitWith: CommitWith<R>) => Promise<R>,
  respond: (result: R, request: ApiRequest<v.InferOutput<S>>) => Reply = (result) => ok(result),
) {
  const chain = middy<Event, APIGatewayProxyResult, Error, ApiContext>()
    .use(injectLambdaContext(logger, neverLogEvents))
    .use(boundary(options.route))
    .use(authenticate());
  if (options.body) chain.use(options.body);
  chain.use(validate(options.request, options.body !== undefined, options.repeatedQuery === true));
  const handler = chain.handler(async (_event, context) => {
    const s = context.state as State;
    const request: ApiRequest<v.InferOutput<S>> = {
      input: s.input as v.InferOutput<S>,
      principal: s.principal as Principal,
      requestId: s.requestId,
      headers: s.headers,
      remainingMs: () => context.getRemainingTimeInMillis(),
    };
    options.authorize?.(request);
    const answer = (result: R) => respond(result, request);
    const reply = options.idempotency
      ? await options.idempotency.around(request, (commitWith: CommitWith<R>) => run(request, commitWith), answer)
      : answer(await run(request, commitNothing));
    return reply as unknown as APIGatewayProxyResult;
  });
  return ownSecrets(handler);
}

/** A handler whose log redaction holds the secrets of its own request only (shared/logger.ts). */
function ownSecrets(handler: (event: Event, context: Context) => Promise<APIGatewayProxyResult>) {
  return (event: Event, context: Context): Promise<APIGatewayProxyResult> => withRequestSecrets(() => handler(event, context));
}

/** For handlers outside the authenticated routes (the API description): only the boundary. */
export function unauthenticated(route: string, run: (event: Event, requestId: string) => Promise<Reply>) {
  return ownSecrets(
    middy<Event, APIGatewayProxyResult, Error, ApiContext>()
      .use(injectLambdaContext(logger, neverLogEvents))
      .use(boundary(route))
      .handler(async (event, context) => (await run(event, (context.state as State).requestId)) as unknown as APIGatewayProxyResult),
  );
}
