import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewayAnswers, gatewayBody } from '../../shared/http/gateway-responses.ts';
import { jsonContentType } from '../../shared/http/response.ts';
import { docsAnswer } from './docs-page.ts';
import { createGateway, type Gateway, limits } from './gateway.ts';

/** API Gateway's own request body limit (the gateway checks it too); the handlers enforce the API's 64 KiB themselves. */
const maxPayloadBytes = limits.requestBodyBytes;

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

/** Serves the API over HTTP through the local gateway (the route table, authorizer and handlers), and the docs page at /docs. */
export async function startServer(options: { host?: string; port?: number; gateway?: Gateway } = {}): Promise<LocalServer> {
  const gateway = options.gateway ?? createGateway();
  const server = createServer(async (req, res) => {
    try {
      // The docs page (/docs) is the sandbox's own; everything else goes through the gateway.
      const page = await docsAnswer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://localhost').pathname);
      if (page) {
        res.writeHead(page.status, page.headers);
        res.end(req.method === 'HEAD' ? undefined : page.body);
        return;
      }
      const body = await readBody(req);
      const out = await gateway.handle({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
        sourceIp: req.socket.remoteAddress,
      });
      res.writeHead(out.status, out.headers);
      res.end(out.binary ?? out.body);
    } catch (error) {
      const a = error instanceof TooLarge ? gatewayAnswers.REQUEST_TOO_LARGE : gatewayAnswers.DEFAULT_5XX;
      if (!(error instanceof TooLarge)) console.error('local server error', error);
      res.writeHead(a.status, { 'Content-Type': jsonContentType, Connection: 'close' });
      res.end(gatewayBody(a, 'local'));
    }
  });
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
