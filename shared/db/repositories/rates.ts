import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { RateRecord } from '../../model/rate.ts';
import { db } from '../client.ts';
import { parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

const entity = 'rate';

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
