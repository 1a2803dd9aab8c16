/**
 * The time budget of every function, in one place: the stack deploys each function with this
 * timeout (infra/function.ts), the local gateway of `npm start` and the tests give a handler no
 * more (infra/local/gateway.ts), and anything that waits inside a request (a keyed retry waiting
 * for its twin, shared/http/idempotency.ts) stops in time to answer within it.
 */

/** A function's timeout (s). API Gateway's own integration timeout (29 s) is longer, so this one binds. */
export const functionTimeoutSeconds = 10;

/** What a request that waits keeps back of its budget to answer after it stops waiting (ms). */
export const answerMarginMs = 1500;
