import type { LocalResponse } from '../../infra/local/gateway.ts';

/** The error types of contract section 2, with the statuses each may carry. */
export const contractErrors: Record<string, readonly number[]> = {
  InvalidMessage: [400, 415],
  UnrecognizedPropertyException: [400],
  ConstraintViolationException: [400],
  ValidationError: [400],
  ObjectDoesNotExist: [400, 404],
  ObjectExists: [400, 409],
  ObjectStatusProhibitsOperation: [400],
  BillableAcknowledgmentNeededException: [400],
  AuthenticationError: [401],
  AuthorizationError: [403],
  NotFound: [404],
  MethodNotAllowed: [405],
  PayloadTooLarge: [413],
  TooManyRequests: [429],
  ProviderUnavailable: [503],
  InternalError: [500],
};

/** Text that must never reach a client: stack frames, runtime error names, file paths, internals. */
const internals = [
  /\n\s+at\s/,
  /\bat [\w.<>$]+ \([^)]*:\d+:\d+\)/, // a stack frame: at fn (file:line:column)
  /(?:TypeError|ReferenceError|RangeError|SyntaxError|EvalError|URIError)\b/,
  /Maximum call stack/i,
  /Cannot read propert/i,
  /is not a function/,
  /undefined is not/,
  /node_modules/,
  /\.(?:ts|js|mjs):\d+/,
  /\/work\/|\/home\/|\/var\/task/,
  /Unexpected token/,
  /in JSON at position/,
  /ValiError|valibot/i,
  /DynamoDB|ConditionalCheck|TransactionCanceled|Throughput|ResourceNotFound/,
  /\bmiddy\b/i,
];

/** The first piece of internal text in an answer, or undefined when there is none. */
export function internalText(raw: string): string | undefined {
  return internals.find((pattern) => pattern.test(raw))?.toString();
}

/** Why an answer breaks the contract (undefined when it is fine). */
export function contractProblem(
  res: LocalResponse,
  request: { method?: string; headers?: Record<string, string> } = {},
): string | undefined {
  const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const requestId = headers['x-request-id'];
  if (!requestId) return 'no X-Request-Id';
  if (headers['x-content-type-options'] !== 'nosniff') return 'no X-Content-Type-Options: nosniff';
  const tagged = headers.etag !== undefined;
  if (headers['cache-control'] !== (tagged ? 'private, no-cache' : 'no-store')) return `Cache-Control ${headers['cache-control']}`;
  // HEAD: the headers of the GET, no body (contract section 1).
  if (request.method?.toUpperCase() === 'HEAD') return res.body === '' ? undefined : 'HEAD answered with a body';
  for (const pattern of internals) if (pattern.test(res.body)) return `internal text on the wire (${pattern}): ${res.body.slice(0, 300)}`;
  if (res.status === 304) {
    const sent = Object.entries(request.headers ?? {}).some(([k]) => k.toLowerCase() === 'if-none-match');
    return sent && res.body === '' ? undefined : '304 without If-None-Match, or with a body';
  }
  if (res.status === 204) return res.body === '' ? undefined : '204 with a body';
  if (res.status >= 200 && res.status < 300) {
    const type = headers['content-type'] ?? '';
    if (/json/.test(type)) {
      try {
        JSON.parse(res.body);
      } catch {
        return `2xx with a body that is not JSON: ${res.body.slice(0, 200)}`;
      }
    } else if (!/^text\/(dns|plain)/.test(type) && type !== 'application/octet-stream') return `2xx with content type ${type}`; // a zone file, a certificate file
    return undefined;
  }
  if (res.status < 400 || res.status >= 500) return `status ${res.status}: ${res.body.slice(0, 300)}`;
  if (!/^application\/json/.test(headers['content-type'] ?? '')) return `error with content type ${headers['content-type']}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    return `error body is not JSON: ${res.body.slice(0, 200)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'error body is not an object';
  if (typeof body.type !== 'string' || !(body.type in contractErrors)) return `unknown error type ${String(body.type)}`;
  if (!contractErrors[body.type]?.includes(res.status)) return `${body.type} with status ${res.status}`;
  if (typeof body.message !== 'string' || body.message.trim() === '') return 'error without a message';
  if (body.requestId !== requestId) return 'error body requestId differs from X-Request-Id';
  if (body.type === 'ConstraintViolationException' || (body.type === 'ValidationError' && body.violations !== undefined)) {
    const violations = body.violations;
    if (!Array.isArray(violations) || violations.length === 0) return `${body.type} without violations`;
    for (const v of violations as Record<string, unknown>[]) {
      if (typeof v.field !== 'string' || typeof v.message !== 'string') return `malformed violation ${JSON.stringify(v)}`;
    }
  }
  if (body.type === 'UnrecognizedPropertyException' && typeof body.property !== 'string')
    return 'UnrecognizedPropertyException without property';
  if (body.type === 'TooManyRequests' && !headers['retry-after']) return '429 without Retry-After';
  return undefined;
}
