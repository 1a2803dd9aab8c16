import { RateRecord } from '../../model/rate.ts';
import { lastInPartition, listPartition, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';

const entity = 'rate';

export function putRates(record: RateRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.rate(record.base, record.date), entity, record), ifAbsent);
}

/** The most recent stored rates (one Query, newest first, limit 1). */
export function getLatestRates(base: 'EUR' = 'EUR'): Promise<RateRecord | undefined> {
  return lastInPartition(keys.ratesOf(base).pk, RateRecord, entity);
}

/** Every stored day of rates, oldest first. */
export function listRates(base: 'EUR' = 'EUR'): Promise<RateRecord[]> {
  return listPartition(keys.ratesOf(base).pk, RateRecord, entity);
}
