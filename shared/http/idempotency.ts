import { createHash, randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.ts';
import { type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { type Claim, claimKey, completeKey, completion, readKey, releaseKey, renewLease } from '../db/repositories/idempotency.ts';
import { ConstraintViolation, ProviderUnavailable, ValidationError } from '../errors.ts';
import { logger } from '../logger.ts';
import type { IdempotencyKeyRecord, StoredAnswer } from '../model/idempotency-key.ts';
import { answerMarginMs, functionTimeoutSeconds } from './function-budget.ts';
import type { ApiRequest, Idempotency } from './pipeline.ts';
import { jsonContentType, type Reply, serializeBody } from './response.ts';

/**
 * The `Idempotency-Key` of the state-changing operations (transfer, renew, cancel, resend): exactly once, across
 * crashes (docs/reliability.md, "Exactly once"). The policy lives here; the records are the data
 * layer's (shared/db/repositories/idempotency.ts).
 *
 * - Without the header, the operation simply runs.
 * - The first request with a key claims it (a lease, renewed while it runs), runs the operation and
 *   hands it a CommitWith: the key's completed record, holding the answer as sent, commits in the
 *   operation's own transaction. The answer is sent from that record, so every replay is the same
 *   bytes.
 * - A retry with the same key, operation and user, and the same request, gets that answer again
 *   (status, headers, body) plus `Idempotent-Replayed: true`, whatever happened to the first
 *   attempt after its transaction committed.
 * - The same key with a different request: 400 ValidationError on `Idempotency-Key`.
 * - A retry while the first attempt runs waits for its answer (up to `waitForTwinMs`, and never
 *   past its own function's timeout, then 503 with Retry-After). A
 *   claim whose attempt stopped renewing it (a crashed function) lapses after `leaseMs` and is
 *   taken over; the attempt it was taken from can no longer commit (its transaction requires the
 *   key), so the work commits once.
 * - When the operation fails, the key is released: a retry runs it again.
 */

/** Header carrying the client's key (case-insensitive; pipeline headers are lower-case). */
export const idempotencyHeader = 'idempotency-key';
/** Header marking a replayed answer. */
export const replayedHeader = 'Idempotent-Replayed';
/**
 * How long a claim holds a key without a sign of life (ms). A running attempt renews it every third
 * of that; one that stopped (a crashed or killed function) lets it lapse, and a retry takes over.
 * Half a function's timeout, so a retry that waits (waitForTwinMs) sees a dead twin's claim lapse
 * and still has time to run the request itself.
 */
export const leaseMs = 5000;
/**
 * How long a duplicate waits for its twin in progress before answering 503 (ms): the function's
 * budget less what answering takes (shared/http/function-budget.ts), and never past what the
 * running function has left (`remainingMs`).
 */
export const waitForTwinMs = functionTimeoutSeconds * 1000 - answerMarginMs;

/** Keys: 1 to 255 printable ASCII characters (a UUID is the usual choice). */
const keyPattern = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentOptions {
  /** The operation's name (`transfer`, `renew`): keys are scoped to it. */
  operation: string;
  /** The caller: keys are scoped to its customer and user, so no one else ever gets its answers. */
  principal: Pick<Principal, 'customer' | 'user'>;
  /** The request headers as the pipeline passes them (lower-case names). */
  headers: Record<string, string>;
  /** What identifies the request: the validated input `{path, query, body}`; its hash is compared. */
  request: unknown;
  /** The time the running function has left (ms), as its Lambda context tells; waits end in time to answer. */
  remainingMs?: () => number;
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

/** JSON with object keys sorted at every level, so equal requests hash alike whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, item]) => `${JSON.stringify(k)}:${canonical(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The answer as it goes on the wire: status, the reply's own headers, its content type and body text. */
function stored(reply: Reply): StoredAnswer {
  return {
    status: reply.status,
    headers: { ...reply.headers },
    contentType: reply.contentType ?? jsonContentType,
    body: reply.body === undefined ? '' : serializeBody(reply),
  };
}

const sameAnswer = (a: StoredAnswer, b: StoredAnswer) => canonical(a) === canonical(b);

/** The hash a key's record keeps of its request (`{path, query, body}` as validated), whatever the key order. */
export function requestHashOf(request: unknown): string {
  return createHash('sha256').update(canonical(request)).digest('base64url');
}

/** A stored answer as a reply: the body text sent as it is, byte for byte. */
function answerOf(answer: StoredAnswer, replayed: boolean): Reply {
  const headers = replayed ? { ...answer.headers, [replayedHeader]: 'true' } : { ...answer.headers };
  return answer.body === ''
    ? { status: answer.status, headers }
    : { status: answer.status, headers, body: answer.body, contentType: answer.contentType };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const mismatch = () =>
  new ValidationError('This Idempotency-Key was already used with a different request.', [
    { field: 'Idempotency-Key', message: 'was already used with a different request' },
  ]);

/**
 * Runs a state-changing operation at most once per `Idempotency-Key` (see the module comment);
 * without the header it just runs it. `run` gets the CommitWith to pass to its use case; `respond`
 * turns the use case's outcome into the answer.
 */
export async function idempotent<R>(
  options: IdempotentOptions,
  run: (commitWith: CommitWith<R>) => Promise<R>,
  respond: (outcome: R) => Reply,
): Promise<Reply> {
  const key = idempotencyKeyOf(options.headers);
  if (key === undefined) return respond(await run(commitNothing));
  const scope = { operation: options.operation, customer: options.principal.customer, user: options.principal.user, key };
  const requestHash = requestHashOf(options.request);
  const deadline = Date.now() + Math.min(waitForTwinMs, (options.remainingMs?.() ?? Number.POSITIVE_INFINITY) - answerMarginMs);
  let seen: IdempotencyKeyRecord | undefined;
  for (let round = 0; ; round++) {
    if (seen === undefined || (seen.state === 'IN_PROGRESS' && seen.leaseExpiresAtMs < Date.now())) {
      const claim: Claim = { scope, attempt: randomUUID(), requestHash };
      if (await claimKey(claim, Date.now() + leaseMs)) {
        const reply = await runClaimed(claim, run, respond);
        if (reply) return reply;
      }
      seen = await readKey(scope);
    }
    if (seen && seen.requestHash !== requestHash) throw mismatch();
    if (seen?.state === 'COMPLETED') return answerOf(seen.answer, true);
    // A twin still runs (or the key just changed hands): wait, and look again.
    if (Date.now() >= deadline) throw new ProviderUnavailable('A request with this Idempotency-Key is still in progress; retry later.', 2);
    await sleep(Math.min(25 * 2 ** round, 400));
    seen = await readKey(scope);
  }
}

/**
 * Runs the operation under a claim, renewing its lease meanwhile. Answers the reply, or undefined
 * when the claim was taken over and the attempt's work did not commit (the caller then waits for the
 * key's answer); a failure is thrown once the key is released.
 */
async function runClaimed<R>(claim: Claim, run: (commitWith: CommitWith<R>) => Promise<R>, respond: (outcome: R) => Reply) {
  // Renewals are best effort: one that fails leaves the lease to run out, which only lets a retry
  // take over (this attempt then cannot commit).
  const renewal = setInterval(() => {
    renewLease(claim, Date.now() + leaseMs).then(
      (held) => {
        if (!held) clearInterval(renewal);
      },
      () => undefined,
    );
  }, leaseMs / 3);
  renewal.unref();
  let committed: StoredAnswer | undefined;
  const commitWith: CommitWith<R> = (outcome) => {
    committed = stored(respond(outcome));
    return completion(claim, committed);
  };
  try {
    const answer = stored(respond(await run(commitWith)));
    if (committed && sameAnswer(committed, answer)) return answerOf(committed, false);
    return await completeAlone(claim, answer);
  } catch (error) {
    return await afterFailure(claim, error);
  } finally {
    clearInterval(renewal);
  }
}

/** Completes the key for work that committed without it (it wrote nothing, or the route passes no CommitWith). */
async function completeAlone(claim: Claim, answer: StoredAnswer): Promise<Reply> {
  try {
    if (await completeKey(claim, answer)) return answerOf(answer, false);
    const record = await readKey(claim.scope);
    if (record?.state === 'COMPLETED' && record.attempt === claim.attempt) return answerOf(record.answer, false);
    logger.warn('idempotency: the key was taken over while the request ran; its answer was not stored', {
      operation: claim.scope.operation,
    });
  } catch (error) {
    // The operation is done; only storing its answer failed. Answer it: a 503 would ask the client
    // to retry work that is done.
    logger.warn('idempotency: the answer could not be stored for replay', {
      operation: claim.scope.operation,
      errorType: (error as Error).name,
    });
  }
  return answerOf(answer, false);
}

/**
 * After the operation failed: releases the key and rethrows; or, when this attempt's transaction
 * committed after all (the failure came after the commit, e.g. its answer was lost on the way back),
 * answers the committed answer; or, when the key was taken over, answers undefined.
 */
async function afterFailure(claim: Claim, error: unknown): Promise<Reply | undefined> {
  let outcome: Awaited<ReturnType<typeof releaseKey>>;
  try {
    outcome = await releaseKey(claim);
  } catch {
    // The key cannot be released now; its lease lapses and a retry takes it over.
    throw error;
  }
  if (outcome.released) throw error;
  const record = outcome.record;
  if (record?.state === 'COMPLETED' && record.attempt === claim.attempt) return answerOf(record.answer, false);
  return undefined;
}

/**
 * The endpoint option (shared/http/pipeline.ts): the route's use case runs once per
 * Idempotency-Key (idempotent() above), keyed by the operation and the caller's customer and user;
 * requests for which `applies` is false (quotes) just run.
 */
export function idempotency<I>(operation: string, applies: (input: I) => boolean = () => true): Idempotency<I> {
  return {
    around: <R>(request: ApiRequest<I>, run: (commitWith: CommitWith<R>) => Promise<R>, respond: (outcome: R) => Reply) =>
      applies(request.input)
        ? idempotent(
            {
              operation,
              principal: request.principal,
              headers: request.headers,
              request: request.input,
              ...(request.remainingMs ? { remainingMs: request.remainingMs } : {}),
            },
            run,
            respond,
          )
        : run(commitNothing).then(respond),
  };
}
