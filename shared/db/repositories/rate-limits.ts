import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../client.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

/**
 * Fixed-window rate limits shared by every instance of a function: one small item per caller,
 * operation and window, counted with one conditional ADD and deleted by TTL after its window.
 */

/**
 * Takes one call of `operation` for `caller` in the window of `windowSeconds` holding `at`: 0 when
 * it may go ahead, else the seconds until the window ends (at least 1), when `limit` calls were
 * already taken in it. A refused call takes nothing.
 */
export async function takeCall(operation: string, caller: string, limit: number, windowSeconds: number, at: Date): Promise<number> {
  const start = Math.floor(at.getTime() / 1000 / windowSeconds) * windowSeconds;
  const end = start + windowSeconds;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateLimit(operation, caller, String(start)),
        UpdateExpression: 'ADD #calls :one SET entity = :entity, expiresAt = :expires',
        ConditionExpression: 'attribute_not_exists(#calls) OR #calls < :limit',
        ExpressionAttributeNames: { '#calls': 'calls' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':entity': 'rateLimit', ':expires': end + windowSeconds },
      }),
    );
    return 0;
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    return Math.max(1, Math.ceil(end - at.getTime() / 1000));
  }
}
