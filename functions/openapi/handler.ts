import type { APIGatewayProxyEvent } from 'aws-lambda';
import { unauthenticated } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { buildDocument, type OpenApiDocument } from './document.ts';

let document: Promise<OpenApiDocument> | undefined;

/**
 * The base URL the caller reached us at: its Host, plus the stage when the path carried it (the
 * execute-api domain; behind a custom domain it does not), so "try it" calls go where the page came from.
 */
function serverUrl(event: APIGatewayProxyEvent): string | undefined {
  const header = (name: string) => Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
  const host = header('host');
  if (!host) return undefined;
  const proto = header('x-forwarded-proto') ?? (/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host) ? 'http' : 'https');
  const { stage, path } = event.requestContext ?? {};
  const prefix = stage && path?.startsWith(`/${stage}/`) ? `/${stage}` : '';
  return `${proto}://${host}${prefix}`;
}

/** GET /v2/openapi.json: the generated document (built once per container), without authentication. */
export const handler = unauthenticated('openapi', async (event) => {
  document ??= buildDocument();
  const base = await document;
  const url = serverUrl(event);
  return ok(url ? { ...base, servers: [{ ...(base.servers as object[])[0], url }] } : base);
});
