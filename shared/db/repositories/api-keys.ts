import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { ApiKeyRecord } from '../../model/api-key.ts';
import { db } from '../client.ts';
import { getItem, listByGsi1, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

const entity = 'apiKey';

/** Stores a key record (by hash). With `ifAbsent`, an existing record is left as it is. */
export function putApiKey(record: ApiKeyRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.apiKey(record.keyHash, record.customer, record.user), entity, record), ifAbsent);
}

/** The key record for a hash, or undefined. One GetItem. */
export function getApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
  return getItem(keys.apiKeyByHash(keyHash), ApiKeyRecord, entity);
}

/** Every key of a customer, through gsi1. */
export function listApiKeys(customer: string): Promise<ApiKeyRecord[]> {
  return listByGsi1(keys.apiKeysOfCustomer(customer).gsi1pk, ApiKeyRecord, entity);
}

/** Deletes a key record; true when it existed. */
export async function deleteApiKey(keyHash: string): Promise<boolean> {
  const out = await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.apiKeyByHash(keyHash), ReturnValues: 'ALL_OLD' }));
  return out.Attributes !== undefined;
}
