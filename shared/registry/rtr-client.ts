import { secretValue } from '../aws/secrets.ts';
import { ProviderUnavailable } from '../errors.ts';
import { logger } from '../logger.ts';

/**
 * The HTTP client of the upstream Realtime Register account (REST API v2, `Authorization: ApiKey`).
 * It answers a parsed JSON body, or throws:
 * - UpstreamRefusal for a 4xx the upstream explains (its `type` and the fields we map), which the
 *   gateway (rtr.ts) turns into the contract's errors in our own wording;
 * - ProviderUnavailable (503 with Retry-After) for a 5xx, a 429, a timeout, a connection failure,
 *   an answer that is not the upstream's JSON, or a refusal of our own credentials.
 * A circuit breaker stops calling an upstream that keeps failing: after `failuresToOpen` failures
 * in a row (or a 429), calls fail at once with 503 until the pause is over; then one call probes.
 * Neither the upstream's address, its key nor its own messages are ever logged or answered: a
 * log line names the call, the HTTP status and the upstream's error type.
 */

export interface RtrSettings {
  /** The upstream's base URL, e.g. `https://api.yoursrs-ote.com` (OT&E) or the production one. */
  apiUrl: string;
  /** The reseller's customer handle upstream. */
  customer: string;
  /** Milliseconds before a call is given up (503). */
  timeoutMs: number;
  /** The registries served through the account, whose metadata the scheduled job copies from it. */
  registries: string[];
}

/** A 4xx the upstream explained: its error type and what the gateway maps (never its message). */
export class UpstreamRefusal extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly objectType: string | undefined,
    readonly identifier: string | undefined,
    readonly fields: string[],
  ) {
    super(`The upstream refused the call (${status} ${type})`);
  }
}

const unavailableMessage = 'The registry is unavailable; retry later.';
/** Failures in a row that open the circuit, and how long it stays open. */
export const failuresToOpen = 5;
const openSeconds = 30;
/** An upstream's Retry-After is honoured up to this many seconds. */
const maxRetryAfterSeconds = 300;
/** Largest upstream answer read (a price list of a large account fits; an endless body does not). */
const maxAnswerBytes = 16 * 1024 * 1024;

const circuit = { failures: 0, openUntil: 0 };

/** Forgets the circuit's state (tests that bring an upstream back). */
export function resetCircuit(): void {
  circuit.failures = 0;
  circuit.openUntil = 0;
}

function openCircuit(seconds: number): void {
  circuit.openUntil = Math.max(circuit.openUntil, Date.now() + seconds * 1000);
}

function unavailable(call: string, reason: string, retryAfterSeconds: number, status?: number, type?: string): ProviderUnavailable {
  circuit.failures++;
  if (circuit.failures >= failuresToOpen) openCircuit(openSeconds);
  logger.warn('registry upstream unavailable', {
    call,
    reason,
    ...(status !== undefined ? { status } : {}),
    ...(type ? { upstreamType: type } : {}),
  });
  return new ProviderUnavailable(unavailableMessage, retryAfterSeconds);
}

/** Seconds of a Retry-After header (delta-seconds or an HTTP date), bounded; `fallback` when absent or unreadable. */
function retryAfterOf(header: string | null, fallback: number): number {
  if (header === null) return fallback;
  const seconds = /^\d{1,9}$/.test(header.trim()) ? Number(header.trim()) : Math.ceil((Date.parse(header) - Date.now()) / 1000);
  if (!Number.isFinite(seconds)) return fallback;
  return Math.min(maxRetryAfterSeconds, Math.max(1, seconds));
}

async function apiKey(): Promise<string> {
  return secretValue('RTR_API_KEY');
}

export interface UpstreamAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

/** One call to the upstream (`path` with its query, relative to the API's base URL). */
export async function upstreamCall(
  settings: RtrSettings,
  call: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<UpstreamAnswer> {
  const waitMs = circuit.openUntil - Date.now();
  if (waitMs > 0) {
    logger.warn('registry upstream circuit open', { call });
    throw new ProviderUnavailable(unavailableMessage, Math.ceil(waitMs / 1000));
  }
  const key = await apiKey();
  let response: Response;
  try {
    response = await fetch(new URL(path, settings.apiUrl), {
      method,
      headers: {
        Authorization: `ApiKey ${key}`,
        Accept: 'application/json',
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(settings.timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    throw unavailable(call, timedOut ? 'timeout' : 'connection failed', timedOut ? 5 : 10);
  }
  let parsed: unknown;
  try {
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > maxAnswerBytes) throw new Error('too large');
    const text = await response.text();
    if (text.length > maxAnswerBytes) throw new Error('too large');
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw unavailable(call, 'unreadable answer', 10, response.status);
  }
  const type = typeof (parsed as { type?: unknown })?.type === 'string' ? (parsed as { type: string }).type : undefined;
  if (response.status === 429) {
    const seconds = retryAfterOf(response.headers.get('retry-after'), openSeconds);
    openCircuit(seconds);
    throw unavailable(call, 'throttled', seconds, 429, type);
  }
  if (response.status >= 500)
    throw unavailable(call, 'server error', retryAfterOf(response.headers.get('retry-after'), 10), response.status, type);
  if (response.status === 401 || response.status === 403) {
    // Our own credentials or account upstream: an operator's problem, never the caller's.
    logger.error('registry upstream refused the account', { call, status: response.status, ...(type ? { upstreamType: type } : {}) });
    throw new ProviderUnavailable(unavailableMessage, 60);
  }
  circuit.failures = 0;
  if (response.status >= 400) {
    const refusal = parsed as { objectType?: unknown; identifier?: unknown; violations?: unknown };
    const fields = Array.isArray(refusal?.violations)
      ? refusal.violations.flatMap((v: unknown) =>
          typeof (v as { field?: unknown })?.field === 'string' ? [(v as { field: string }).field] : [],
        )
      : [];
    throw new UpstreamRefusal(
      response.status,
      type ?? 'unknown',
      typeof refusal?.objectType === 'string' ? refusal.objectType : undefined,
      typeof refusal?.identifier === 'string' ? refusal.identifier : undefined,
      fields,
    );
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** An upstream answer that does not have the shape the call expects: 503, logged without its content. */
export function malformedAnswer(call: string): ProviderUnavailable {
  return unavailable(call, 'unexpected answer', 10);
}
