import type { APIGatewayProxyResult } from 'aws-lambda';

/** What a use case answers: a status, an optional JSON body and extra headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const jsonContentType = 'application/json; charset=utf-8';

/** 200 with a JSON body. */
export function ok(body: unknown, headers: Record<string, string> = {}): Reply {
  return { status: 200, body, headers };
}

/** Serialises a reply into the API Gateway (REST, payload 1.0) result. */
export function toResult(reply: Reply, requestId: string): APIGatewayProxyResult {
  const headers: Record<string, string> = { ...reply.headers, 'X-Request-Id': requestId };
  if (reply.body === undefined) return { statusCode: reply.status, headers, body: '' };
  headers['Content-Type'] = jsonContentType;
  return { statusCode: reply.status, headers, body: JSON.stringify(reply.body) };
}
