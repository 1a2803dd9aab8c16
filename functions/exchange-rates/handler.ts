import type { Context, ScheduledEvent } from 'aws-lambda';
import { getLatestRates } from '../../shared/db/repositories/rates.ts';
import { jobRan } from '../../shared/jobs/job-runs.ts';
import { logger } from '../../shared/logger.ts';
import { recordExchangeRateAge } from '../../shared/metrics.ts';
import { type RatesUpdate, updateExchangeRates } from '../../shared/pricing/update-exchange-rates.ts';
import { now } from '../../shared/time.ts';

/**
 * The daily exchange-rate job (EventBridge schedule, shared/routes.ts `jobs`). A failure is logged
 * as an error and rethrown, so the invocation fails and the function's Errors metric can alarm.
 */
export async function handler(_event: ScheduledEvent, context: Context): Promise<RatesUpdate> {
  logger.addContext(context);
  try {
    const result = await updateExchangeRates();
    logger.info('exchange rates updated', { ...result });
    await jobRan('exchange-rates', result);
    return result;
  } catch (error) {
    logger.error('exchange-rate update failed; the last stored rates stay in force', { error: error as Error });
    throw error;
  } finally {
    await reportRateAge();
  }
}

/** Emits the age of the newest stored rate on every run, failed or not: the staleness alarm reads it. */
async function reportRateAge(): Promise<void> {
  try {
    const latest = await getLatestRates();
    if (latest) recordExchangeRateAge(latest.date, now());
  } catch (error) {
    // No datapoint then: the alarm treats a missing day as stale.
    logger.warn('could not read the newest exchange rate for the staleness metric', { error: error as Error });
  }
}
