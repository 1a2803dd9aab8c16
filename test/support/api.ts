import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createGateway, type LocalResponse, lambdaContext, proxyEvent } from '../../infra/local/gateway.ts';
import { type Principal, principalToContext } from '../../shared/auth/principal.ts';
import { matchRoute } from '../../shared/routes.ts';
import { assertConforms } from './conformance.ts';

/** The demo API keys (infra/demo-data.json). */
export const demoKey = 'demo-key';
export const limitedKey = 'demo-limited-key';
export const otherKey = 'other-key';

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, the text itself for a non-JSON content type, or undefined for an empty body. */
  body: any;
  /** The body as text (decompressed, as a client would, when it came with a Content-Encoding). */
  raw: string;
  /** The body's size on the wire (compressed, when it was). */
  wireBytes?: number;
  /** The body's bytes (decompressed), for a file that is not text (a ZIP). */
  bytes?: Buffer;
}

export interface CallOptions {
  key?: string | null;
  headers?: Record<string, string>;
  /** An object is sent as JSON with `Content-Type: application/json`; a string is sent as is. */
  body?: unknown;
}

const gateway = createGateway();

function parse(out: LocalResponse): ApiResponse {
  const headers = Object.fromEntries(Object.entries(out.headers).map(([k, val]) => [k.toLowerCase(), val]));
  const bytes = out.binary ?? Buffer.from(out.body, 'utf8');
  const coding = headers['content-encoding'];
  const decoded = coding === 'gzip' ? gunzipSync(bytes) : coding === 'br' ? brotliDecompressSync(bytes) : bytes;
  const raw = decoded.toString('utf8');
  let body: unknown;
  const json = !headers['content-type'] || /[/+]json\b/i.test(headers['content-type']);
  if (raw !== '') body = json ? JSON.parse(raw) : raw;
  return { status: out.status, headers, body, raw, wireBytes: bytes.length, bytes: decoded };
}

/**
 * Calls the API as a client would, minus the socket: the local gateway matches the route table,
 * runs the authorizer and invokes the real handler with a real API Gateway event.
 */
export async function call(method: string, url: string, options: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? demoKey : options.key;
  if (key !== null && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
    headers.Authorization = `ApiKey ${key}`;
  }
  let body: string | undefined;
  if (typeof options.body === 'string') body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  const response = parse(await gateway.handle({ method, url, headers, body }));
  // Every response the suite sees must match the OpenAPI document (so the document cannot drift).
  await assertConforms(method, new URL(url, 'http://localhost').pathname, response);
  return response;
}

/** A proxy event for calling a handler directly, as the given principal (or none). */
export function apiEvent(options: {
  method: string;
  path: string;
  resource: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string | null;
  principal?: Principal | null;
}): APIGatewayProxyEvent {
  const principal =
    options.principal === undefined ? { customer: 'demo', user: 'alice', permissions: ['DESIGNATED_AGENT' as const] } : options.principal;
  return proxyEvent({
    method: options.method,
    path: options.path,
    resource: options.resource,
    headers: options.headers ?? {},
    query: options.query ?? null,
    pathParameters: options.pathParameters ?? null,
    body: options.body ?? null,
    authorizer: principal ? { ...principalToContext(principal), principalId: `${principal.customer}/${principal.user}` } : null,
    requestId: crypto.randomUUID(),
  });
}

/** Invokes a handler directly with an event and a Lambda context; returns the parsed response. */
export async function invoke(
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>,
  event: APIGatewayProxyEvent,
): Promise<ApiResponse> {
  const result = await handler(event, lambdaContext('test', event.requestContext.requestId));
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, val]) => [k, String(val)]));
  const response = parse(
    result.isBase64Encoded
      ? { status: result.statusCode, headers, body: '', binary: Buffer.from(result.body, 'base64') }
      : { status: result.statusCode, headers, body: result.body },
  );
  // Handlers of the route table only: pipeline tests also invoke handlers built on made-up paths.
  if (matchRoute(event.httpMethod, event.path).kind === 'route') await assertConforms(event.httpMethod, event.path, response);
  return response;
}
