import type { Context, ScheduledEvent } from 'aws-lambda';
import { type ExpiryRun, runExpiry } from '../../shared/domains/expiry.ts';
import { logger } from '../../shared/logger.ts';

/** What a run keeps back of the function's time, so the steps under way finish (ms). */
const marginMs = 4_000;
/** A run's time without a Lambda context (a direct call). */
const localBudgetMs = 7_000;

/**
 * The scheduled expiry job (docs/domains.md, "Life cycle"): hourly deployed, every minute under
 * `npm start`. Takes the domains that are due one step each (notice, auto-renewal, expiry,
 * redemption, removal), then charges the next year of the PREMIUM zones whose paid year is over
 * (shared/dns/premium-renewal.ts), within its budget; what is left stays due for the next run.
 */
export async function handler(event: ScheduledEvent, context: Context): Promise<ExpiryRun> {
  const remaining = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() - marginMs : localBudgetMs;
  const at = event?.time ? new Date(event.time) : new Date();
  const run = await runExpiry(Number.isNaN(at.getTime()) ? new Date() : at, { deadline: Date.now() + Math.max(remaining, 1_000) });
  if (run.read > 0 || run.zones.read > 0)
    logger.info('domain expiry run', { job: 'domain-expiry', requestId: context?.awsRequestId, ...run });
  return run;
}
