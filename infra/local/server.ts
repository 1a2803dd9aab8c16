import { createServer, type IncomingMessage, maxHeaderSize, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type GatewayAnswer, gatewayAnswers } from '../../shared/http/gateway-responses.ts';
import { docsAnswer, type StaticAnswer } from './docs-page.ts';
import { createGateway, type Gateway, limits, refusal } from './gateway.ts';
import { carriesToken, controlPath } from './local-server-file.ts';

/** API Gateway's own request body limit (the gateway checks it too); the handlers enforce the API's 64 KiB themselves. */
const maxPayloadBytes = limits.requestBodyBytes;

/** What the HTTP parser refuses before a request exists (the `clientError` of node:http). */
const parserAnswers = {
  headersTooLarge: {
    status: 431,
    type: 'InvalidMessage',
    message: `The request line and headers are larger than ${maxHeaderSize} bytes.`,
  },
  malformed: {
    status: 400,
    type: 'InvalidMessage',
    message: 'The request is not well-formed HTTP (an unknown method, or a malformed request line or header).',
  },
} as const satisfies Record<string, GatewayAnswer>;

export interface LocalServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

class TooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxPayloadBytes) {
        reject(new TooLarge());
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A request the HTTP parser refused (node:http's `clientError`: an unknown method such as `FOO`, a
 * request line and headers over maxHeaderSize, a malformed header): the contract's error body with
 * a request id, written on the socket, since no response object exists yet.
 */
function refuseUnparsable(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const out = refusal(error.code === 'HPE_HEADER_OVERFLOW' ? parserAnswers.headersTooLarge : parserAnswers.malformed);
  const headers = { ...out.headers, 'Content-Length': String(Buffer.byteLength(out.body)), Connection: 'close' };
  const head = [`HTTP/1.1 ${out.status} ${STATUS_CODES[out.status]}`, ...Object.entries(headers).map(([k, val]) => `${k}: ${val}`)];
  socket.end(`${head.join('\r\n')}\r\n\r\n${out.body}`);
}

/** Writes an answer; a HEAD gets the headers only (with the length of the body it would have had, when known). */
function send(
  res: ServerResponse,
  out: StaticAnswer & { binary?: Buffer },
  method: string | undefined,
  extra: Record<string, string> = {},
): void {
  // A compressed answer goes out as its bytes, as API Gateway sends a base64 result (binary media types).
  const body = out.binary ?? out.body;
  const length = Buffer.byteLength(body);
  // A HEAD of the API arrives without its body (the handler drops it), a 304 has none: no length to tell then.
  const known = length > 0 || (method !== 'HEAD' && out.status !== 304) ? { 'Content-Length': String(length) } : {};
  res.writeHead(out.status, { ...out.headers, ...known, ...extra });
  res.end(method === 'HEAD' ? undefined : body);
}

/** Serves the API over HTTP through the local gateway (the route table, authorizer and handlers), and the docs page at /docs. */
export async function startServer(
  options: { host?: string; port?: number; gateway?: Gateway; controlToken?: string } = {},
): Promise<LocalServer> {
  const gateway = options.gateway ?? createGateway();
  const server = createServer(async (req, res) => {
    try {
      // The admin CLI's control path (revoke-key): only with this start's token; anything else goes on as any request.
      if (req.method === 'POST' && req.url === controlPath && carriesToken(req.headers['x-local-control'], options.controlToken)) {
        gateway.flushAuthorizerCache();
        res.writeHead(204).end();
        return;
      }
      // The docs page (/docs) is the sandbox's own; everything else goes through the gateway.
      const page = await docsAnswer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://localhost').pathname);
      if (page) return send(res, page, req.method);
      const body = await readBody(req);
      const out = await gateway.handle({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
        sourceIp: req.socket.remoteAddress,
      });
      send(res, out, req.method);
    } catch (error) {
      if (!(error instanceof TooLarge)) console.error('local server error', error);
      const out = refusal(error instanceof TooLarge ? gatewayAnswers.REQUEST_TOO_LARGE : gatewayAnswers.DEFAULT_5XX);
      send(res, out, req.method, { Connection: 'close' });
    }
  });
  server.on('clientError', refuseUnparsable);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
