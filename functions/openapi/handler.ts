import type { APIGatewayProxyEvent } from 'aws-lambda';
import { unauthenticated } from '../../shared/http/pipeline.ts';
import { jsonContentType, okText } from '../../shared/http/response.ts';
import { buildDocument, type OpenApiDocument } from './document.ts';

/** A host as a server URL may name it: a DNS name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const hostPattern = /^(?:(?:[A-Za-z0-9-]{1,63}\.)*[A-Za-z0-9-]{1,63}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
const loopback = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/;

/**
 * The base URL the caller reached us at, so "try it" calls go where the page came from: the host
 * API Gateway names (`requestContext.domainName`; locally the Host header), plus the stage when
 * the path carried it. Only `https`, or `http` where the request says so or the host is this
 * machine: the document never names another scheme (`javascript:`...), and a host that is no
 * host name is left out (the document then names its default server).
 */
function serverUrl(event: APIGatewayProxyEvent): string | undefined {
  const header = (name: string) => Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
  const host = event.requestContext?.domainName ?? header('host');
  if (!host || !hostPattern.test(host)) return undefined;
  const forwarded = header('x-forwarded-proto')?.trim().toLowerCase();
  const proto = forwarded === 'http' || forwarded === 'https' ? forwarded : loopback.test(host) ? 'http' : 'https';
  const { stage, path } = event.requestContext ?? {};
  const prefix = stage && /^[A-Za-z0-9_-]{1,128}$/.test(stage) && path?.startsWith(`/${stage}/`) ? `/${stage}` : '';
  return `${proto}://${host}${prefix}`;
}

let document: Promise<OpenApiDocument> | undefined;
/** The document as sent, per server URL: built and serialized once, then served as it is. */
const served = new Map<string, string>();
/** Distinct server URLs kept; a caller cycling through Host values cannot grow the cache past it. */
const maxServed = 16;

async function serialized(url: string | undefined): Promise<string> {
  const key = url ?? '';
  const hit = served.get(key);
  if (hit !== undefined) return hit;
  document ??= buildDocument();
  const base = await document;
  const text = JSON.stringify(url ? { ...base, servers: [{ ...(base.servers as object[])[0], url }] } : base);
  if (served.size < maxServed) served.set(key, text);
  return text;
}

/** GET /v2/openapi.json: the generated document, built and serialized once per container, without authentication. */
export const handler = unauthenticated('openapi', async (event) => okText(await serialized(serverUrl(event)), jsonContentType));
