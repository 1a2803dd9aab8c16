import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tlsPair } from '../../infra/local/pebble.ts';

/**
 * A proxy in front of an ACME server (the test's Pebble) that can rewrite an answer: what another
 * CA may answer where Pebble cannot be made to. It speaks TLS with a certificate of its own (trust
 * `certificate`), forwards each call as it is, keeping the Host the client used (Pebble builds its
 * URLs from it and checks each request's signed URL against it, so the client talks to the proxy
 * throughout), and hands each answer to `rewrite`, which may replace it (or answer without
 * forwarding, `answerOnly`).
 */

export interface ProxiedCall {
  method: string;
  path: string;
  /** The request's body (a JWS for ACME POSTs): its `payload` decoded, when it has one. */
  payload: unknown;
}

export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Answers instead of the server; `forward: false` answers without calling it. */
export type Rewrite = (call: ProxiedCall, answer: ProxiedAnswer | undefined) => (ProxiedAnswer & { forward?: boolean }) | undefined;

export interface AcmeProxy {
  directoryUrl: string;
  certificate: string;
  /** `METHOD path` of every call, in order. */
  calls: string[];
  /** What rewrites answers now (undefined: none). Asked before forwarding with no answer; then with the server's. */
  rewrite: Rewrite | undefined;
  stop(): Promise<void>;
}

/** A JSON answer with an ACME problem (RFC 8555 6.7). */
export function problemAnswer(status: number, type: string, detail: string, nonce?: string | string[]): ProxiedAnswer {
  return {
    status,
    headers: { 'content-type': 'application/problem+json', ...(nonce ? { 'replay-nonce': nonce } : {}) },
    body: Buffer.from(JSON.stringify({ type: `urn:ietf:params:acme:error:${type}`, detail, status })),
  };
}

function payloadOf(body: Buffer): unknown {
  try {
    const jws = JSON.parse(body.toString()) as { payload?: string };
    if (!jws.payload) return undefined;
    return JSON.parse(Buffer.from(jws.payload, 'base64url').toString());
  } catch {
    return undefined;
  }
}

export async function startAcmeProxy(target: { directoryUrl: string; tlsCertificate: string }): Promise<AcmeProxy> {
  const tls = await tlsPair();
  const upstream = new URL(target.directoryUrl);
  const proxy: AcmeProxy = { directoryUrl: '', certificate: tls.certificate, calls: [], rewrite: undefined, stop: async () => {} };
  const server = createServer({ cert: tls.certificate, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const call: ProxiedCall = { method: req.method ?? 'GET', path: req.url ?? '/', payload: payloadOf(body) };
      proxy.calls.push(`${call.method} ${call.path}`);
      const send = (answer: ProxiedAnswer) => {
        const headers = { ...answer.headers };
        delete headers['content-length'];
        delete headers['transfer-encoding'];
        res.writeHead(answer.status, { ...headers, 'content-length': answer.body.length });
        res.end(answer.body);
      };
      const before = proxy.rewrite?.(call, undefined);
      if (before && before.forward === false) return send(before);
      const forwarded = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: call.path,
          method: call.method,
          headers: { ...req.headers },
          ca: target.tlsCertificate,
          servername: 'localhost',
        },
        (up) => {
          const got: Buffer[] = [];
          up.on('data', (c: Buffer) => got.push(c));
          up.on('end', () => {
            const answer: ProxiedAnswer = { status: up.statusCode ?? 502, headers: up.headers, body: Buffer.concat(got) };
            send(proxy.rewrite?.(call, answer) ?? answer);
          });
        },
      );
      forwarded.on('error', () => send({ status: 502, headers: {}, body: Buffer.from('upstream unreachable') }));
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  proxy.directoryUrl = `https://127.0.0.1:${port}${upstream.pathname}`;
  proxy.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
