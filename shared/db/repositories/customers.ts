import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { CustomerRecord } from '../../model/customer.ts';
import { db } from '../client.ts';
import { getItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

const entity = 'customer';

export function putCustomer(record: CustomerRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.customer(record.handle), entity, record), ifAbsent);
}

export function getCustomer(handle: string): Promise<CustomerRecord | undefined> {
  return getItem(keys.customerByHandle(handle), CustomerRecord, entity);
}

/**
 * The handles of up to `limit` customers after `after` (from the first without it), in handle
 * order: one Query of the customers' listing on gsi1keys (keys only: the handle is in the key).
 */
export async function listCustomerHandles(after: string | undefined, limit: number): Promise<string[]> {
  const listing = keys.customers();
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1keys',
      KeyConditionExpression: after === undefined ? 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)' : 'gsi1pk = :pk AND gsi1sk > :after',
      ExpressionAttributeValues: {
        ':pk': listing.gsi1pk,
        ...(after === undefined ? { ':prefix': listing.gsi1skPrefix } : { ':after': `${listing.gsi1skPrefix}${after}` }),
      },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => String(item.gsi1sk).slice(listing.gsi1skPrefix.length));
}
