/**
 * Per-key throttling for the local gateway, as an API Gateway usage plan does it: a token bucket
 * per key that holds `burst` tokens and refills at `rate` tokens a second; a request takes one
 * token or is refused with 429 and how long until the next token.
 */

export interface RateLimit {
  /** Steady requests per second per key. */
  rate: number;
  /** Requests a key may make at once (the bucket's size). */
  burst: number;
}

/** Generous defaults, so tests and demos never meet them; set LOCAL_RATE_LIMIT_RPS / _BURST to try a client's back-off. */
export const defaultLocalRateLimit: RateLimit = { rate: 1000, burst: 2000 };

/** The limit from the environment (`LOCAL_RATE_LIMIT_RPS`, `LOCAL_RATE_LIMIT_BURST`), or the default. */
export function rateLimitFromEnv(env: NodeJS.ProcessEnv = process.env): RateLimit {
  const number = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not '${raw}'`);
    return value;
  };
  const rate = number('LOCAL_RATE_LIMIT_RPS', defaultLocalRateLimit.rate);
  // Without an explicit burst, twice the rate (API Gateway's usual ratio), at least 1.
  const burst = number('LOCAL_RATE_LIMIT_BURST', env.LOCAL_RATE_LIMIT_RPS ? Math.max(1, Math.ceil(rate * 2)) : defaultLocalRateLimit.burst);
  return { rate, burst };
}

/** Token buckets by key. */
export function createRateLimiter(limit: RateLimit, clock: () => number = Date.now) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** Takes a token for `key`: 0 when the request may pass, else the seconds to wait (at least 1). */
    take(key: string): number {
      const now = clock();
      const bucket = buckets.get(key) ?? { tokens: limit.burst, at: now };
      bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.rate);
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / limit.rate));
    },
  };
}
