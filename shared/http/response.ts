import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Outcome } from '../model/process.ts';
import { type Coding, compress, varyOnEncoding } from './encoding.ts';

/** What a use case answers: a status, an optional JSON body and extra headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Set for a body that is not JSON: `body` is then a string, sent as is with this content type. */
  contentType?: string;
  /** Set for bytes (a ZIP file): `body` is then their base64, sent as bytes (`isBase64Encoded`) and never compressed. */
  binary?: true;
  /**
   * The version of the object a 200 GET answers (a zone's revision: `r12`), put first in its
   * ETag (`"r12.<hash>"`), so a write's `If-Match` can name the version it read (versionOf).
   */
  version?: string;
  /**
   * A JSON body already serialized and compressed (a stored snapshot: the price list), in place of
   * `body`: sent as it is, in the coding the client accepts, its ETag from its stored digest.
   */
  precoded?: Precoded;
}

/** A JSON body already serialized, with its SHA-256 and its gzip and Brotli codings. */
export interface Precoded {
  /** The JSON text's length in bytes. */
  bytes: number;
  /** SHA-256 of the JSON text, base64url. */
  sha256: string;
  gzip: Uint8Array;
  br: Uint8Array;
  /** The JSON text (for a client that accepts no coding, or an answer under 1 KB). */
  text(): string;
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
export function processAnswer(whenCompleted: 200 | 201 | 202) {
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

/** 200 with bytes of the given content type (a file to download); `body` carries them as base64. */
export function okBytes(bytes: Uint8Array, contentType: string, headers: Record<string, string> = {}): Reply {
  return { status: 200, body: Buffer.from(bytes).toString('base64'), headers, contentType, binary: true };
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

/** Serialises a reply into the API Gateway (REST, payload 1.0) result. Every answer says `Vary: Accept-Encoding`. */
export function toResult(reply: Reply, requestId: string): APIGatewayProxyResult {
  const tagged = reply.headers?.ETag !== undefined;
  const headers: Record<string, string> = {
    ...answerHeaders(tagged),
    ...reply.headers,
    Vary: varyOnEncoding(reply.headers?.Vary),
    'X-Request-Id': requestId,
  };
  if (reply.body === undefined) return { statusCode: reply.status, headers, body: '' };
  headers['Content-Type'] = reply.contentType ?? jsonContentType;
  return { statusCode: reply.status, headers, body: serializeBody(reply) };
}

/**
 * A reply whose body is already serialized (`text`) as the result, compressed with `coding` when
 * given: the body then goes base64-encoded (`isBase64Encoded`), which API Gateway turns back into
 * bytes (binary media types `*\/*`, infra/stack.ts), with `Content-Encoding`.
 */
export function encodedResult(reply: Reply, text: string, coding: Coding | undefined, requestId: string): APIGatewayProxyResult {
  const headers: Record<string, string> = {
    ...answerHeaders(reply.headers?.ETag !== undefined),
    ...reply.headers,
    Vary: varyOnEncoding(reply.headers?.Vary),
    'X-Request-Id': requestId,
    'Content-Type': reply.contentType ?? jsonContentType,
  };
  if (reply.binary) return { statusCode: reply.status, headers, body: text, isBase64Encoded: true };
  if (coding === undefined) return { statusCode: reply.status, headers, body: text };
  const body = compress(Buffer.from(text, 'utf8'), coding).toString('base64');
  return { statusCode: reply.status, headers: { ...headers, 'Content-Encoding': coding }, body, isBase64Encoded: true };
}

/**
 * A precoded reply (`Reply.precoded`) as the result: its stored coding when the client takes one
 * (base64-encoded, with `Content-Encoding`, as `encodedResult` sends a compressed body), else its text.
 */
export function precodedResult(reply: Reply, precoded: Precoded, coding: Coding | undefined, requestId: string): APIGatewayProxyResult {
  const headers: Record<string, string> = {
    ...answerHeaders(reply.headers?.ETag !== undefined),
    ...reply.headers,
    Vary: varyOnEncoding(reply.headers?.Vary),
    'X-Request-Id': requestId,
    'Content-Type': jsonContentType,
  };
  if (coding === undefined) return { statusCode: reply.status, headers, body: precoded.text() };
  const body = Buffer.from(precoded[coding]).toString('base64');
  return { statusCode: reply.status, headers: { ...headers, 'Content-Encoding': coding }, body, isBase64Encoded: true };
}

/**
 * Lambda's limit on a synchronous function's response payload: the result object as JSON
 * (6 MB as Lambda's quotas state it; 6,291,556 bytes as its error message says).
 */
export const lambdaResponseLimit = 6_291_556;

/** The result's size as Lambda counts it (the JSON of the whole result); exact only where it could matter. */
export function resultBytes(result: APIGatewayProxyResult): number {
  // JSON escaping at most doubles a body of ours (quotes, backslashes, newlines), so a body under
  // a third of the limit cannot reach it: skip the serialization of the result then.
  if (result.body.length < lambdaResponseLimit / 3) return result.body.length;
  return Buffer.byteLength(JSON.stringify(result));
}
