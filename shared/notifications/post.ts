import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { deliverableAddress, endpointUrlProblem } from './endpoint-address.ts';

/**
 * One attempt to POST a signed notification to a customer's endpoint, defended against SSRF: the
 * URL is checked again, its host resolved now and every address it resolves to must be public
 * (loopback only when allowed, for local trials), and the connection goes to the address checked
 * (pinned, so a second resolution cannot swap it); redirects are not followed; the whole attempt
 * has a deadline; at most `maxResponseBytes` of the answer are read.
 */

export const attemptTimeoutMs = 10_000;
export const maxResponseBytes = 4096;

export type Attempt =
  | { kind: 'delivered'; status: number }
  /** 410 Gone: the receiver says the endpoint is no more. */
  | { kind: 'gone'; failure: string }
  | { kind: 'failed'; failure: string; retryAfterSeconds?: number };

/** `Retry-After` in seconds (a number of seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterOf(value: string | undefined, at: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - at.getTime()) / 1000));
}

async function resolved(host: string): Promise<{ address: string; family: number } | string> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(bare) !== 0) addresses = [{ address: bare, family: isIP(bare) }];
  else {
    try {
      addresses = await lookup(bare, { all: true, verbatim: true });
    } catch {
      return `${host} does not resolve`;
    }
  }
  if (addresses.length === 0) return `${host} does not resolve`;
  if (!addresses.every((a) => deliverableAddress(a.address))) return `${host} resolves to an address that is not public; refused`;
  return addresses[0] as { address: string; family: number };
}

export async function postSigned(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs = attemptTimeoutMs,
): Promise<Attempt> {
  const problem = endpointUrlProblem(url);
  if (problem) return { kind: 'failed', failure: `the endpoint URL ${problem}; refused` };
  const target = new URL(url);
  const to = await resolved(target.hostname);
  if (typeof to === 'string') return { kind: 'failed', failure: to };
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [to]);
    else callback(null, to.address, to.family);
  };
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    const finish = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(attempt);
    };
    const req = send(
      target,
      {
        method: 'POST',
        lookup: pinned,
        headers: {
          ...headers,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'registrar-webhooks/1',
        },
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > maxResponseBytes) res.destroy();
        });
        const done = () => {
          req.destroy();
          if (status >= 200 && status < 300) finish({ kind: 'delivered', status });
          else if (status === 410) finish({ kind: 'gone', failure: 'HTTP 410 Gone' });
          else {
            const retryAfter = retryAfterOf(res.headers['retry-after'], new Date());
            const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
            finish({
              kind: 'failed',
              failure: `HTTP ${status}${redirect}`,
              ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
            });
          }
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const deadline = setTimeout(() => {
      req.destroy();
      finish({ kind: 'failed', failure: `no answer within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    req.on('error', (error) =>
      finish({ kind: 'failed', failure: `connection failed (${(error as NodeJS.ErrnoException).code ?? 'error'})` }),
    );
    req.end(body);
  });
}
