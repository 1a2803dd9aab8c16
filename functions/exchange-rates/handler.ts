import type { Context, ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import { updateExchangeRates } from './job.ts';

/**
 * The daily exchange-rate job (EventBridge schedule, shared/routes.ts `jobs`). A failure is logged
 * as an error and rethrown, so the invocation fails and the function's Errors metric can alarm.
 */
export async function handler(_event: ScheduledEvent, context: Context): Promise<{ date: string; currencies: number; stored: boolean }> {
  logger.addContext(context);
  try {
    const result = await updateExchangeRates();
    logger.info('exchange rates updated', { ...result });
    return result;
  } catch (error) {
    logger.error('exchange-rate update failed; the last stored rates stay in force', { error: error as Error });
    throw error;
  }
}
