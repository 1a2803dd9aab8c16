import { authenticationChallenge, throttledMessage, unauthenticatedMessage } from '../errors.ts';
import { answerHeaders } from './response.ts';

/**
 * Answers API Gateway gives by itself (before or instead of a Lambda), in the contract's error
 * shape. The CDK stack installs them as gateway responses; the local gateway renders the same ones.
 */
export interface GatewayAnswer {
  status: number;
  type: string;
  message: string;
  headers?: Record<string, string>;
}

/** An answer the client may retry after `seconds` (the Retry-After header). */
function retryLater<S extends number, T extends string>(status: S, type: T, message: string, seconds: number) {
  return { status, type, message, headers: { 'Retry-After': String(seconds) } };
}

export const gatewayAnswers = {
  UNAUTHORIZED: { status: 401, type: 'AuthenticationError', message: unauthenticatedMessage, headers: authenticationChallenge },
  /** The authorizer failed (e.g. the key store throttled): safe to retry. */
  AUTHORIZER_FAILURE: retryLater(503, 'ProviderUnavailable', 'Authentication is temporarily unavailable; retry later.', 1),
  ACCESS_DENIED: { status: 403, type: 'AuthorizationError', message: 'This API key may not call this operation.' },
  /** The key is valid but has no usage-plan counterpart in API Gateway (see `npm run admin -- register-keys`). */
  INVALID_API_KEY: {
    status: 403,
    type: 'AuthorizationError',
    message: 'This API key is not enabled for this API yet; ask the operator to register it.',
  },
  THROTTLED: retryLater(429, 'TooManyRequests', throttledMessage, 1),
  QUOTA_EXCEEDED: retryLater(429, 'TooManyRequests', 'The request quota of this API key is used up; retry later.', 60),
  REQUEST_TOO_LARGE: { status: 413, type: 'PayloadTooLarge', message: 'The request body is too large.' },
  DEFAULT_4XX: { status: 400, type: 'InvalidMessage', message: 'The request could not be processed.' },
  /** A path no route serves (API Gateway finds no resource): answered by the gateway, no function runs. */
  MISSING_AUTHENTICATION_TOKEN: { status: 404, type: 'NotFound', message: 'No route for this path.' },
  DEFAULT_5XX: {
    status: 500,
    type: 'InternalError',
    message: 'An internal error occurred; it has been logged with the request id.',
  },
} as const satisfies Record<string, GatewayAnswer>;

export type GatewayAnswerName = keyof typeof gatewayAnswers;

/**
 * The headers of a gateway answer besides X-Request-Id and Content-Type: those of every API answer
 * that is not cacheable (no-store, nosniff), and the answer's own (Retry-After, WWW-Authenticate).
 */
export function gatewayHeaders(answer: GatewayAnswer): Record<string, string> {
  return { ...answerHeaders(false), ...answer.headers };
}

/** The JSON body, with the request id filled in (API Gateway fills `$context.requestId`). */
export function gatewayBody(answer: GatewayAnswer, requestId: string): string {
  return JSON.stringify({ type: answer.type, message: answer.message, requestId });
}

/**
 * 405 for a method no route of a known path serves, with `Allow`: API Gateway answers it from a
 * mock integration (infra/stack.ts), the local gateway the same way; no function runs.
 */
export function methodNotAllowedAnswer(method: string, allow: readonly string[]): GatewayAnswer {
  const allowed = allow.join(', ');
  return {
    status: 405,
    type: 'MethodNotAllowed',
    message: `Method ${method} is not allowed here; allowed: ${allowed}.`,
    headers: { Allow: allowed },
  };
}
