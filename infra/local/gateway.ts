import { randomUUID } from 'node:crypto';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { apiKeyHeaderPattern } from '../../shared/auth/api-keys.ts';
import { functionTimeoutSeconds } from '../../shared/http/function-budget.ts';
import {
  type GatewayAnswer,
  gatewayAnswers,
  gatewayBody,
  gatewayHeaders,
  methodNotAllowedAnswer,
} from '../../shared/http/gateway-responses.ts';
import { jsonContentType } from '../../shared/http/response.ts';
import { withInvocationLogger } from '../../shared/logger.ts';
import { authorizerCacheSeconds, authorizerDir, matchRoute } from '../../shared/routes.ts';
import { createRateLimiter, type RateLimit, rateLimitFromEnv } from './rate-limit.ts';

/** A plain HTTP request as the local server received it. */
export interface LocalRequest {
  method: string;
  /** Path and query string, as on the request line. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: string;
  sourceIp?: string;
}

export interface LocalResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as text; '' when it is binary. */
  body: string;
  /** A binary (compressed) body: the bytes API Gateway sends for a base64 result. */
  binary?: Buffer;
}

/**
 * The limits API Gateway (REST API) and Lambda enforce on a buffered Lambda proxy integration, as
 * they answer them with this stack's gateway responses (infra/stack.ts):
 * - a request body over 10 MB: API Gateway refuses it, 413 (REQUEST_TOO_LARGE);
 * - an event over 6 MB (Lambda's invocation payload limit; with binary media types `*\/*` the body
 *   is in it base64-encoded): Lambda refuses the invocation, which API Gateway answers as an
 *   internal error (500, DEFAULT_5XX);
 * - a function result over 6 MB (the result object as JSON, 6,291,556 bytes as Lambda's error
 *   says): a function error, which API Gateway answers 502, turned into the DEFAULT_5XX answer
 *   (500) because the stack sets that response's status, which sets every 5XX gateway answer's.
 */
export const limits = {
  requestBodyBytes: 10 * 1024 * 1024,
  invocationPayloadBytes: 6 * 1024 * 1024,
  responsePayloadBytes: 6_291_556,
} as const;

type LambdaHandler<E, R> = (event: E, context: Context) => Promise<R>;
type ProxyHandler = LambdaHandler<APIGatewayProxyEvent, APIGatewayProxyResult>;
type AuthorizerHandler = LambdaHandler<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>;

const modules = new Map<string, Promise<{ handler: unknown }>>();

/** Loads a function's handler module, the very file its Lambda bundles, once. */
function loadHandler<T>(dir: string): Promise<T> {
  let module = modules.get(dir);
  if (!module) {
    module = import(`../../functions/${dir}/handler.ts`) as Promise<{ handler: unknown }>;
    modules.set(dir, module);
  }
  return module.then((m) => m.handler as T);
}

/** A Lambda context as the runtime passes it. */
export function lambdaContext(functionName: string, requestId: string, timeoutMs = functionTimeoutFromEnv()): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function answer(a: GatewayAnswer, requestId: string): LocalResponse {
  return {
    status: a.status,
    headers: { 'Content-Type': jsonContentType, 'X-Request-Id': requestId, ...gatewayHeaders(a) },
    body: gatewayBody(a, requestId),
  };
}

/**
 * A refusal of the local HTTP layer itself (a body over the payload limit, a request line or
 * headers too large, a method no HTTP parser knows, an unknown docs asset), before any handler
 * runs: the contract's error body under a request id of its own, in `X-Request-Id` as well
 * (contract section 1).
 */
export function refusal(a: GatewayAnswer): LocalResponse {
  return answer(a, randomUUID());
}

/** The parts of a REST API (payload 1.0) proxy event that vary per request. */
export interface ProxyEventParts {
  method: string;
  path: string;
  resource: string;
  headers: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  query?: Record<string, string> | null;
  multiQuery?: Record<string, string[]> | null;
  pathParameters: Record<string, string> | null;
  body: string | null;
  /** The body is base64 (API Gateway with binary media types `*\/*` sends every request body so). */
  isBase64Encoded?: boolean;
  authorizer: APIGatewayProxyEvent['requestContext']['authorizer'];
  requestId: string;
  sourceIp?: string;
}

/** Builds the event API Gateway (REST API, Lambda proxy integration) hands a function. */
export function proxyEvent(p: ProxyEventParts): APIGatewayProxyEvent {
  const userAgent = Object.entries(p.headers).find(([k]) => k.toLowerCase() === 'user-agent')?.[1] ?? null;
  return {
    resource: p.resource,
    path: p.path,
    httpMethod: p.method,
    headers: p.headers,
    multiValueHeaders: p.multiValueHeaders ?? Object.fromEntries(Object.entries(p.headers).map(([k, val]) => [k, [val]])),
    queryStringParameters: p.query ?? null,
    multiValueQueryStringParameters:
      p.multiQuery ?? (p.query ? Object.fromEntries(Object.entries(p.query).map(([k, val]) => [k, [val]])) : null),
    pathParameters: p.pathParameters,
    stageVariables: null,
    body: p.body,
    isBase64Encoded: p.isBase64Encoded ?? false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: p.authorizer,
      httpMethod: p.method,
      identity: {
        sourceIp: p.sourceIp ?? '127.0.0.1',
        userAgent,
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        user: null,
        userArn: null,
      },
      // As behind a custom domain: the stage is not part of the path the client called.
      path: p.path,
      protocol: 'HTTP/1.1',
      requestId: p.requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: p.resource,
      stage: 'local',
    },
  };
}

export interface GatewayOptions {
  /** Seconds an authorizer answer is cached per Authorization header (API Gateway's TTL). */
  authorizerCacheSeconds?: number;
  /** Per-key throttling (the usage plan's); default from LOCAL_RATE_LIMIT_RPS / LOCAL_RATE_LIMIT_BURST. */
  rateLimit?: RateLimit;
  /** The throttle's clock (ms), so a test can move time itself rather than sleep. */
  clock?: () => number;
  /**
   * A function's timeout (ms); default LOCAL_FUNCTION_TIMEOUT_MS, else the stack's
   * (shared/http/function-budget.ts). Raise it only where many requests share this one process at
   * once (a race test), where each would have a function of its own when deployed.
   */
  functionTimeoutMs?: number;
}

/** The functions' timeout locally: LOCAL_FUNCTION_TIMEOUT_MS, else the stack's. */
export function functionTimeoutFromEnv(): number {
  const raw = Number(process.env.LOCAL_FUNCTION_TIMEOUT_MS);
  return Number.isInteger(raw) && raw > 0 ? raw : functionTimeoutSeconds * 1000;
}

/**
 * The local stand-in for API Gateway (REST API, payload 1.0): matches the route table, runs the
 * authorizer (with a result cache, as API Gateway does), builds the event and invokes the handler.
 */
export function createGateway(options: GatewayOptions = {}) {
  const authorize = createAuthorize((options.authorizerCacheSeconds ?? authorizerCacheSeconds) * 1000);
  const limiter = createRateLimiter(options.rateLimit ?? rateLimitFromEnv(), options.clock);

  /** API Gateway's checks before the integration: the authorizer, then the usage plan's per-key throttle. */
  async function admit(request: ParsedRequest, requestId: string): Promise<Admission> {
    const methodArn = `arn:aws:execute-api:local:000000000000:local/local/${request.method}${request.url.pathname}`;
    const authHeader = Object.entries(request.headers).find(([k]) => k.toLowerCase() === 'authorization')?.[1];
    const granted = await authorize(authHeader, methodArn, requestId);
    if (!granted) return { refused: answer(gatewayAnswers.UNAUTHORIZED, requestId) };
    if (granted === 'failure') return { refused: answer(gatewayAnswers.AUTHORIZER_FAILURE, requestId) };
    // The usage plan's per-key throttle, keyed like API Gateway's by the authorizer's usage identifier.
    const wait = limiter.take(granted.usageIdentifierKey ?? granted.principalId);
    if (wait > 0) return { refused: answer({ ...gatewayAnswers.THROTTLED, headers: { 'Retry-After': String(wait) } }, requestId) };
    return { authorizer: { ...granted.context, principalId: granted.principalId, integrationLatency: 0 } };
  }

  return {
    /** Drops the authorizer's cached answers, so a key revoked meanwhile is refused at once. */
    flushAuthorizerCache: () => authorize.flush(),
    /** Handles one HTTP request end to end. */
    async handle(request: LocalRequest): Promise<LocalResponse> {
      const requestId = randomUUID();
      const parsed = parseRequest(request);
      // A request target no URL parser takes (`/\\<invalid host>`, found by fuzzing): API Gateway's 400.
      if (!parsed) return answer(gatewayAnswers.DEFAULT_4XX, requestId);
      if (request.body !== undefined && Buffer.byteLength(request.body) > limits.requestBodyBytes) {
        return answer(gatewayAnswers.REQUEST_TOO_LARGE, requestId);
      }
      const match = matchRoute(parsed.method, parsed.url.pathname);
      // What no route takes is answered here, as API Gateway does (infra/stack.ts): no function runs.
      if (match.kind !== 'route') {
        const refused = answer(
          match.kind === 'method-not-allowed'
            ? methodNotAllowedAnswer(parsed.method, match.allow)
            : gatewayAnswers.MISSING_AUTHENTICATION_TOKEN,
          requestId,
        );
        return parsed.method === 'HEAD' ? { ...refused, body: '' } : refused;
      }
      const route = match.route;
      let authorizer: ProxyAuthorizer = null;
      if (route.auth !== false) {
        const admission = await admit(parsed, requestId);
        // A refused HEAD gets the refusal's status and headers, without its body (HTTP has none for HEAD).
        if ('refused' in admission) return parsed.method === 'HEAD' ? { ...admission.refused, body: '' } : admission.refused;
        authorizer = admission.authorizer;
      }
      const event = proxyEvent({
        method: parsed.method,
        path: parsed.url.pathname,
        resource: route.path,
        headers: parsed.headers,
        multiValueHeaders: parsed.multiValueHeaders,
        query: parsed.url.searchParams.size > 0 ? parsed.query : null,
        multiQuery: parsed.url.searchParams.size > 0 ? parsed.multiQuery : null,
        pathParameters: match.pathParameters,
        body: request.body === undefined || request.body === '' ? null : Buffer.from(request.body, 'utf8').toString('base64'),
        isBase64Encoded: request.body !== undefined && request.body !== '',
        authorizer,
        requestId,
        sourceIp: request.sourceIp ?? '127.0.0.1',
      });
      return invoke(route.dir, route.id, event, requestId, options.functionTimeoutMs ?? functionTimeoutFromEnv());
    },
  };
}

type ProxyAuthorizer = APIGatewayProxyEvent['requestContext']['authorizer'];

/** The outcome of the gateway's checks: the authorizer context for the event, or the answer that ends the request. */
type Admission = { authorizer: ProxyAuthorizer } | { refused: LocalResponse };

/** An authorizer's cached answer for one Authorization header. */
interface Grant {
  expires: number;
  context: Record<string, string>;
  principalId: string;
  usageIdentifierKey?: string;
}

/**
 * Runs the API-key authorizer as API Gateway does: the token regex first, then the cache, then the
 * function. Answers the grant, undefined for a refusal (401), or 'failure' (AUTHORIZER_FAILURE).
 */
function createAuthorize(ttlMs: number) {
  const cache = new Map<string, Grant>();
  const authorize = async function authorize(
    header: string | undefined,
    methodArn: string,
    requestId: string,
  ): Promise<Grant | 'failure' | undefined> {
    if (!header || !apiKeyHeaderPattern.test(header)) return undefined; // refused by the token validation regex
    const hit = cache.get(header);
    if (hit && hit.expires > Date.now()) return hit;
    const authorizer = await loadHandler<AuthorizerHandler>(authorizerDir);
    try {
      const context = lambdaContext('authorizer', requestId);
      const result = await withInvocationLogger(context, () =>
        authorizer({ type: 'TOKEN', authorizationToken: header, methodArn }, context),
      );
      const allowed = result.policyDocument.Statement.some((s) => s.Effect === 'Allow');
      if (!allowed) return undefined;
      const entry = {
        expires: Date.now() + ttlMs,
        principalId: result.principalId,
        context: Object.fromEntries(Object.entries(result.context ?? {}).map(([k, val]) => [k, String(val)])),
        ...(result.usageIdentifierKey ? { usageIdentifierKey: result.usageIdentifierKey } : {}),
      };
      cache.set(header, entry);
      return entry;
    } catch (error) {
      // 'Unauthorized' is a refusal (401); any other failure is API Gateway's AUTHORIZER_FAILURE.
      if ((error as Error).message === 'Unauthorized') return undefined;
      return 'failure' as const;
    }
  };
  /** Drops every cached answer (API Gateway's FlushStageAuthorizersCache): a revoked key stops at once. */
  const flush = () => cache.clear();
  return Object.assign(authorize, { flush });
}

/** A request as API Gateway reads it: the URL, single- and multi-value headers and query, the method. */
interface ParsedRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  query: Record<string, string>;
  multiQuery: Record<string, string[]>;
}

/** Reads a request as API Gateway does; undefined when its target is no URL at all. */
function parseRequest(request: LocalRequest): ParsedRequest | undefined {
  let url: URL;
  try {
    url = new URL(request.url, 'http://localhost');
  } catch {
    return undefined;
  }
  // Built with Object.fromEntries, not by assignment: a header or parameter named `__proto__`
  // or `constructor` must stay a plain entry (found by the fuzz suite).
  const headerEntries = Object.entries(request.headers).flatMap(([name, value]) =>
    value === undefined ? [] : [[name, Array.isArray(value) ? value : [value]] as const],
  );
  const headers: Record<string, string> = Object.fromEntries(headerEntries.map(([name, values]) => [name, values.join(',')]));
  const multiValueHeaders: Record<string, string[]> = Object.fromEntries(headerEntries);
  const params = new Map<string, string[]>();
  for (const [k, val] of url.searchParams) params.set(k, [...(params.get(k) ?? []), val]);
  const multiQuery: Record<string, string[]> = Object.fromEntries(params);
  const query: Record<string, string> = Object.fromEntries([...params].map(([k, vals]) => [k, vals[vals.length - 1] as string]));
  return { url, method: request.method.toUpperCase(), headers, multiValueHeaders, query, multiQuery };
}

/**
 * Invokes a function's handler with the event, within Lambda's payload limits, and turns its
 * result into the HTTP response (a base64 body back into bytes, as API Gateway does).
 */
async function invoke(
  dir: string,
  functionName: string,
  event: APIGatewayProxyEvent,
  requestId: string,
  timeoutMs = functionTimeoutFromEnv(),
): Promise<LocalResponse> {
  // Lambda refuses an invocation over its payload limit; API Gateway answers it as an internal error.
  if (Buffer.byteLength(JSON.stringify(event)) > limits.invocationPayloadBytes) return answer(gatewayAnswers.DEFAULT_5XX, requestId);
  const handler = await loadHandler<ProxyHandler>(dir);
  let result: APIGatewayProxyResult | 'timed out';
  let timer: NodeJS.Timeout | undefined;
  try {
    // Lambda stops a function at its timeout, and API Gateway answers that as a function error.
    // Here the handler cannot be stopped: its answer is dropped and it runs on in the background.
    // One process serves every local function: when it stalls, many timers come due at once, and
    // Node runs them grouped by duration, not by when each was due, so this timer can run before a
    // function's own early answer that was due first (middy's, just before the deadline). So when it
    // fires, the timers already due run first (setImmediate: after the timers phase) and an answer
    // the function gave by then is the answer, as Lambda, where each function has its own process,
    // would have had it in time.
    const context = lambdaContext(functionName, requestId, timeoutMs);
    const invocation = withInvocationLogger(context, () => handler(event, context));
    let settled: { result: APIGatewayProxyResult } | { error: unknown } | undefined;
    invocation.then(
      (r) => {
        settled = { result: r };
      },
      (error: unknown) => {
        settled = { error };
      },
    );
    const timedOut = new Promise<'timed out'>((resolve) => {
      timer = setTimeout(() => setImmediate(() => resolve('timed out')), timeoutMs);
    });
    result = await Promise.race([invocation, timedOut]);
    if (result === 'timed out' && settled !== undefined) {
      const done = settled as { result: APIGatewayProxyResult } | { error: unknown };
      if ('error' in done) throw done.error;
      result = done.result;
    }
  } catch {
    // A function error (API Gateway's 502, as DEFAULT_5XX answers it); ours never should throw.
    return answer(gatewayAnswers.DEFAULT_5XX, requestId);
  } finally {
    clearTimeout(timer);
  }
  if (result === 'timed out') {
    console.error(`local gateway: ${functionName} ran past its ${timeoutMs} ms timeout`);
    return answer(gatewayAnswers.DEFAULT_5XX, requestId);
  }
  return integrationResponse(functionName, result, requestId);
}

/**
 * A function's result as API Gateway answers it: over Lambda's response limit, the function error
 * (Function.ResponseSizeTooLarge) API Gateway answers with DEFAULT_5XX; else the status, headers
 * and body, a base64 body as bytes.
 */
export function integrationResponse(functionName: string, result: APIGatewayProxyResult, requestId: string): LocalResponse {
  if (result.body.length > limits.responsePayloadBytes / 3 && Buffer.byteLength(JSON.stringify(result)) > limits.responsePayloadBytes) {
    console.error(`local gateway: ${functionName} answered over Lambda's ${limits.responsePayloadBytes}-byte response limit`);
    return answer(gatewayAnswers.DEFAULT_5XX, requestId);
  }
  const outHeaders: Record<string, string> = {};
  for (const [k, val] of Object.entries(result.headers ?? {})) outHeaders[k] = String(val);
  if (result.isBase64Encoded)
    return { status: result.statusCode, headers: outHeaders, body: '', binary: Buffer.from(result.body, 'base64') };
  return { status: result.statusCode, headers: outHeaders, body: result.body };
}

export type Gateway = ReturnType<typeof createGateway>;
