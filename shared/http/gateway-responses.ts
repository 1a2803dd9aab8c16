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

export const gatewayAnswers = {
  UNAUTHORIZED: {
    status: 401,
    type: 'AuthenticationError',
    message: 'Missing, malformed or unknown API key. Send the header `Authorization: ApiKey <key>`.',
  },
  /** The authorizer failed (e.g. the key store throttled): safe to retry. */
  AUTHORIZER_FAILURE: {
    status: 503,
    type: 'ProviderUnavailable',
    message: 'Authentication is temporarily unavailable; retry later.',
    headers: { 'Retry-After': '1' },
  },
  ACCESS_DENIED: { status: 403, type: 'AuthorizationError', message: 'This API key may not call this operation.' },
  /** The key is valid but has no usage-plan counterpart in API Gateway (see `npm run admin -- register-keys`). */
  INVALID_API_KEY: {
    status: 403,
    type: 'AuthorizationError',
    message: 'This API key is not enabled for this API yet; ask the operator to register it.',
  },
  THROTTLED: {
    status: 429,
    type: 'TooManyRequests',
    message: 'Too many requests for this API key; retry later.',
    headers: { 'Retry-After': '1' },
  },
  QUOTA_EXCEEDED: {
    status: 429,
    type: 'TooManyRequests',
    message: 'The request quota of this API key is used up; retry later.',
    headers: { 'Retry-After': '60' },
  },
  REQUEST_TOO_LARGE: { status: 413, type: 'PayloadTooLarge', message: 'The request body is too large.' },
  DEFAULT_4XX: { status: 400, type: 'InvalidMessage', message: 'The request could not be processed.' },
  DEFAULT_5XX: {
    status: 500,
    type: 'InternalError',
    message: 'An internal error occurred; it has been logged with the request id.',
  },
} as const satisfies Record<string, GatewayAnswer>;

export type GatewayAnswerName = keyof typeof gatewayAnswers;

/** The JSON body, with the request id filled in (API Gateway fills `$context.requestId`). */
export function gatewayBody(answer: GatewayAnswer, requestId: string): string {
  return JSON.stringify({ type: answer.type, message: answer.message, requestId });
}
