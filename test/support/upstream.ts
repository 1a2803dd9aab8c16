import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Launcher, launch } from './sandbox.ts';

/**
 * A second instance of this service's sandbox as the upstream Realtime Register account of the one
 * under test (`REGISTRY_GATEWAY=rtr`): `npm start` as a process, on a free port, with a table of
 * its own on the run's DynamoDB Local and the demo data, reached over HTTP with `Authorization:
 * ApiKey`. Between the two, a proxy on a free port: it forwards every call as it is and records
 * it, or, when told to, breaks it at the HTTP boundary (a 5xx, a 429, no answer, an answer lost
 * after the upstream acted on the call).
 */

export type ProxyMode =
  | { kind: 'pass' }
  /**
   * Answers every call (or only the call `METHOD path?query` given; the others pass) with `status`
   * (and `body`, else an internal error's), without forwarding it.
   */
  | { kind: 'status'; status: number; retryAfter?: string; body?: unknown; call?: string }
  | { kind: 'hang' }
  /**
   * Forwards the call, waits for the upstream's answer, then drops the connection: the upstream
   * acted, we never hear it. Only for the call `METHOD path?query` given; the others pass.
   */
  | { kind: 'lose-answer'; call: string };

export interface Upstream {
  launcher: Launcher;
  /** The upstream's own address (tests read it directly). */
  url: string;
  /** Its table, on the run's DynamoDB Local. */
  tableName: string;
  /** The proxy's address: what the service under test calls. */
  proxyUrl: string;
  /** `METHOD path?query` of every call that reached the proxy, in order. */
  seen: string[];
  setMode(mode: ProxyMode): void;
  stop(): Promise<void>;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forward(
  target: URL,
  req: IncomingMessage,
  payload: Buffer,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (res) => {
        void body(res).then((b) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: b }), reject);
      },
    );
    out.on('error', reject);
    out.end(payload);
  });
}

/**
 * How long the upstream may take to get ready: it loads the demo data into the run's DynamoDB
 * Local, which the whole suite shares, so a busy run makes it slow (a start, not a request).
 */
export const readyWithinMs = 150_000;

/** Starts the upstream sandbox and the proxy in front of it. */
export async function startUpstream(dynamodbEndpoint: string): Promise<Upstream> {
  const tableName = `upstream-${randomUUID()}`;
  const started: ChildProcess[] = [];
  const launcher = await launch([], { DYNAMODB_ENDPOINT: dynamodbEndpoint, TABLE_NAME: tableName }, { started, readyWithinMs }).catch(
    (error: unknown) => {
      // A start that never got ready leaves no process behind.
      for (const child of started) child.kill('SIGTERM');
      throw error;
    },
  );
  const target = new URL(launcher.url);
  let mode: ProxyMode = { kind: 'pass' };
  const seen: string[] = [];
  const hanging = new Set<IncomingMessage>();
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const named = mode.kind === 'lose-answer' || (mode.kind === 'status' && mode.call !== undefined);
    const current = named && 'call' in mode && mode.call !== `${req.method} ${req.url}` ? { kind: 'pass' as const } : mode;
    void (async () => {
      const payload = await body(req);
      if (current.kind === 'hang') {
        hanging.add(req);
        return;
      }
      if (current.kind === 'status') {
        res.writeHead(current.status, {
          'Content-Type': 'application/json',
          ...(current.retryAfter !== undefined ? { 'Retry-After': current.retryAfter } : {}),
        });
        res.end(JSON.stringify(current.body ?? { type: 'InternalError', message: `upstream detail: database at ${target.host} failed` }));
        return;
      }
      const answer = await forward(target, req, payload);
      if (current.kind === 'lose-answer') {
        req.socket.destroy();
        return;
      }
      const headers = { ...answer.headers };
      delete headers['transfer-encoding'];
      delete headers.connection;
      res.writeHead(answer.status, headers);
      res.end(answer.body);
    })().catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    launcher,
    url: launcher.url,
    tableName,
    proxyUrl,
    seen,
    setMode(next) {
      mode = next;
    },
    async stop() {
      for (const req of hanging) req.socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      launcher.child.kill('SIGTERM');
      if (launcher.child.exitCode === null) await new Promise((resolve) => launcher.child.once('exit', resolve));
    },
  };
}

/** A call to the upstream itself, as its reseller's account (`Authorization: ApiKey`). */
export async function upstreamGet(upstream: Upstream, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(path, upstream.url), { headers: { Authorization: 'ApiKey demo-key' } });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}
