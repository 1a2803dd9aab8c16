import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { idempotencyStore } from '../db/repositories/idempotency.ts';
import { ConstraintViolation, ProviderUnavailable, ValidationError } from '../errors.ts';
import { logger } from '../logger.ts';
import type { ApiRequest, Idempotency } from './pipeline.ts';
import { isTransient } from './pipeline.ts';
import type { Reply } from './response.ts';

/**
 * The `Idempotency-Key` mechanism of the state-changing operations (transfer, renew), built on
 * Powertools for AWS Lambda (idempotency) with its DynamoDB persistence layer on our single table.
 *
 * Usage: an endpoint option (shared/http/pipeline.ts), never around a quote, which changes nothing:
 *
 *   endpoint({ route: 'transfer', ..., idempotency: idempotency('transfer', (input) => !input.query.quote) }, ...)
 *
 * - Without the header, `run` simply runs.
 * - The first request with a key runs `run` and stores its Reply (status, body, headers) for 24 hours.
 * - A later request with the same key, operation and customer and the same `request` gets the stored
 *   Reply again, plus the header `Idempotent-Replayed: true`; `run` does not run.
 * - The same key with a different `request`: 400 ValidationError on `Idempotency-Key`.
 * - A request whose twin is still running waits for it (polling) and replays its answer; if the
 *   twin takes longer than `waitForTwinMs`, 503 ProviderUnavailable (safe to retry).
 * - When `run` throws, nothing is stored: a retry runs again (so a 400 can be corrected and resent
 *   under the same key only with the same body, which then fails or succeeds on its own merits).
 */

/** Header carrying the client's key (case-insensitive; pipeline headers are lower-case). */
export const idempotencyHeader = 'idempotency-key';
/** Header marking a replayed answer. */
export const replayedHeader = 'Idempotent-Replayed';
/** How long an answer is kept for replay (seconds); the record then expires through the table's TTL. */
export const replayWindowSeconds = 24 * 60 * 60;
/**
 * How long an attempt may hold its key before a retry may take over (ms). API Gateway gives up
 * on a request after 29 s, so an attempt older than this is dead from the client's point of view.
 */
export const inProgressTimeoutMs = 30_000;
/** How long a duplicate waits for its twin in progress before answering 503 (ms). */
export const waitForTwinMs = 20_000;

/** Keys: 1 to 255 printable ASCII characters (a UUID is the usual choice). */
const keyPattern = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentOptions {
  /** The operation's name (`transfer`, `renew`): keys are scoped to it. */
  operation: string;
  /** The caller's customer handle: keys are scoped to it, so customers never collide. */
  customer: string;
  /** The request headers as the pipeline passes them (lower-case names). */
  headers: Record<string, string>;
  /** What identifies the request: the validated input `{path, query, body}`; its hash is compared. */
  request: unknown;
}

/** What the persistence layer hashes: the key part and the payload part (JMESPath below). */
interface Envelope {
  customer: string;
  key: string;
  request: unknown;
}

/** The `Idempotency-Key` of a request, validated; undefined when the header is absent. */
export function idempotencyKeyOf(headers: Record<string, string>): string | undefined {
  const raw = headers[idempotencyHeader];
  if (raw === undefined) return undefined;
  const key = raw.trim();
  if (!keyPattern.test(key)) {
    throw new ConstraintViolation([{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters without spaces' }]);
  }
  return key;
}

/** A Reply as plain JSON (no undefined values), the form in which it is stored and replayed. */
function plain(reply: Reply): Reply {
  return JSON.parse(JSON.stringify(reply)) as Reply;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a state-changing operation at most once per `Idempotency-Key` (see the module comment);
 * without the header it just runs it.
 */
export async function idempotent(options: IdempotentOptions, run: () => Promise<Reply>): Promise<Reply> {
  const key = idempotencyKeyOf(options.headers);
  if (key === undefined) return run();
  const started = Date.now();
  const envelope: Envelope = { customer: options.customer, key, request: options.request };
  let done: Reply | undefined;
  const once = makeIdempotent(async (_envelope: Envelope) => (done = plain(await run())), {
    persistenceStore: idempotencyStore(options.operation),
    keyPrefix: options.operation,
    config: new IdempotencyConfig({
      eventKeyJmesPath: '[customer, key]',
      payloadValidationJmesPath: 'request',
      throwOnNoIdempotencyKey: true,
      expiresAfterSeconds: replayWindowSeconds,
      hashFunction: 'sha256',
      lambdaContext: { getRemainingTimeInMillis: () => Math.max(1, inProgressTimeoutMs - (Date.now() - started)) } as never,
      responseHook: (response) => {
        const reply = response as unknown as Reply;
        return { ...reply, headers: { ...reply.headers, [replayedHeader]: 'true' } } as never;
      },
    }),
  });
  for (let attempt = 0; ; attempt++) {
    try {
      return (await once(envelope)) as unknown as Reply;
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'IdempotencyValidationError') {
        throw new ValidationError('This Idempotency-Key was already used with a different request.', [
          { field: 'Idempotency-Key', message: 'was already used with a different request' },
        ]);
      }
      if (name === 'IdempotencyAlreadyInProgressError') {
        if (Date.now() - started >= waitForTwinMs) {
          throw new ProviderUnavailable('A request with this Idempotency-Key is still in progress; retry later.', 2);
        }
        await sleep(Math.min(25 * 2 ** attempt, 400));
        continue;
      }
      if (done !== undefined) {
        // The operation ran and committed; only storing its answer for replay failed. Answer it: a
        // 503 would tell the client to retry something that is already done (found by fault injection).
        logger.warn('idempotency: the answer could not be stored for replay', { operation: options.operation, errorType: name });
        return done;
      }
      // The library wraps data-store failures; a transient one is a 503 like anywhere else.
      const cause = (error as { cause?: unknown }).cause;
      if (name.startsWith('Idempotency') && (isTransient(cause) || isTransient(error))) throw new ProviderUnavailable();
      throw error;
    }
  }
}

/**
 * The endpoint option (shared/http/pipeline.ts): the route's answer runs once per Idempotency-Key
 * (idempotent() above), keyed by the operation and the caller's customer; requests for which
 * `applies` is false (quotes) just run.
 */
export function idempotency<I>(operation: string, applies: (input: I) => boolean = () => true): Idempotency<I> {
  return {
    around: (request: ApiRequest<I>, answer: () => Promise<Reply>) =>
      applies(request.input)
        ? idempotent({ operation, customer: request.principal.customer, headers: request.headers, request: request.input }, answer)
        : answer(),
  };
}
