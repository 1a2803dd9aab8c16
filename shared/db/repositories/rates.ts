import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db } from '../client.ts';
import { parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

const entity = 'rate';

/** The reference rates of one day against a base currency: 1 base = rates[X] X. */
export const RateRecord = v.object({
  base: v.literal('EUR'),
  date: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/)),
  rates: v.record(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)), v.pipe(v.number(), v.gtValue(0))),
  /** Where and when the rates were fetched (source URL, wire time). */
  source: v.optional(v.string()),
  fetchedDate: v.optional(v.string()),
});
export type RateRecord = v.InferOutput<typeof RateRecord>;

export function putRates(record: RateRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.rate(record.base, record.date), entity, record), ifAbsent);
}

/** The most recent stored rates (one Query, newest first, limit 1). */
export async function getLatestRates(base: 'EUR' = 'EUR'): Promise<RateRecord | undefined> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.ratesOf(base).pk },
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const item = out.Items?.[0];
  return item ? parseItem(RateRecord, entity, item) : undefined;
}

/** Every stored day of rates, oldest first. */
export async function listRates(base: 'EUR' = 'EUR'): Promise<RateRecord[]> {
  const items = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.ratesOf(base).pk } });
  return items.map((item) => parseItem(RateRecord, entity, item));
}
