import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db } from '../client.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

/**
 * Allocates the next id of a sequence (`process`, `zone`, `certificate`, ...): one atomic ADD, so
 * concurrent callers always get distinct, increasing ids. An id whose object is never written
 * leaves a gap, never a duplicate.
 */
export async function nextId(sequence: string): Promise<number> {
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.counter(sequence),
      UpdateExpression: 'ADD #value :one SET entity = :entity',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': 1, ':entity': 'counter' },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return v.parse(v.pipe(v.number(), v.integer(), v.minValue(1)), out.Attributes?.value);
}

/** Raises a sequence to at least `floor` (for datasets whose objects carry ids), never lowers it. */
export async function ensureIdFloor(sequence: string, floor: number): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.counter(sequence),
        UpdateExpression: 'SET #value = :floor, entity = :entity',
        ConditionExpression: 'attribute_not_exists(#value) OR #value < :floor',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':floor': floor, ':entity': 'counter' },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}
