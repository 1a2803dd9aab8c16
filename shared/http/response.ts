import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Outcome } from '../model/process.ts';

/** What a use case answers: a status, an optional JSON body and extra headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Set for a body that is not JSON: `body` is then a string, sent as is with this content type. */
  contentType?: string;
}

export const jsonContentType = 'application/json; charset=utf-8';

/** 200 with a JSON body. */
export function ok(body: unknown, headers: Record<string, string> = {}): Reply {
  return { status: 200, body, headers };
}

/**
 * The answer of a state-changing operation (contract 3.1, 3.2): a quote is 200 with the quote; a
 * started process is 202 Accepted, or `whenCompleted` when the process was done at once, with the
 * process id in `x-process-id`.
 */
export function processAnswer(whenCompleted: 200 | 202) {
  return (outcome: Outcome<unknown, unknown>): Reply => {
    if ('quote' in outcome) return ok(outcome.quote);
    const { processId, completed, view } = outcome.started;
    return { status: completed ? whenCompleted : 202, body: view, headers: { 'x-process-id': String(processId) } };
  };
}

/** 200 with a text body of the given content type (e.g. a zone file as `text/dns`). */
export function okText(body: string, contentType: string, headers: Record<string, string> = {}): Reply {
  return { status: 200, body, headers, contentType };
}

/** The body as sent on the wire: the text as is for a text reply, else JSON. */
export function serializeBody(reply: Reply): string {
  if (reply.contentType !== undefined) {
    if (typeof reply.body !== 'string') throw new TypeError('A reply with a contentType needs a string body');
    return reply.body;
  }
  return JSON.stringify(reply.body);
}

/**
 * Headers every API answer carries (issue 18: answers stay out of shared caches and are never
 * MIME-sniffed): a tagged answer (a GET's 200 or 304, with its ETag) may be kept by the caller's
 * own cache, which must revalidate it each time (`If-None-Match`); no other answer is stored at all.
 */
export function answerHeaders(tagged: boolean): Record<string, string> {
  return { 'Cache-Control': tagged ? 'private, no-cache' : 'no-store', 'X-Content-Type-Options': 'nosniff' };
}

/** Serialises a reply into the API Gateway (REST, payload 1.0) result. */
export function toResult(reply: Reply, requestId: string): APIGatewayProxyResult {
  const tagged = reply.headers?.ETag !== undefined;
  const headers: Record<string, string> = { ...answerHeaders(tagged), ...reply.headers, 'X-Request-Id': requestId };
  if (reply.body === undefined) return { statusCode: reply.status, headers, body: '' };
  headers['Content-Type'] = reply.contentType ?? jsonContentType;
  return { statusCode: reply.status, headers, body: serializeBody(reply) };
}
