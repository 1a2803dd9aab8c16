import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../client.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

/**
 * Slots of a counted side effect of a process: an e-mail the registry or the authority sends at
 * the customer's request, at most `max` times. A slot is taken in one conditional update before
 * the outside party is asked, so concurrent requests can never ask it more than `max` times in
 * all, whatever order their writes land in.
 *
 * The item (`SLOTS#<effect>` in the process's partition) holds `taken`, the slots taken, and
 * `recordedBefore`, what the process had recorded when the item was created (effects recorded
 * before slots existed, or before an item was given back). A request whose call fails gives its
 * slot back; an item back at `recordedBefore` is deleted, so a refused call leaves the table as it
 * found it.
 */

const entity = 'effectSlots';

function isConditionFailure(error: unknown): boolean {
  return (error as Error).name === 'ConditionalCheckFailedException';
}

/** Takes a slot; false when all `max` are taken. `recorded`: how many the process records now (the base of a new item). */
export async function takeEffectSlot(processId: number, effect: string, recorded: number, max: number): Promise<boolean> {
  if (recorded >= max) return false;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.processEffectSlots(processId, effect),
        UpdateExpression:
          'SET taken = if_not_exists(taken, :recorded) + :one, recordedBefore = if_not_exists(recordedBefore, :recorded), entity = :entity',
        ConditionExpression: 'attribute_not_exists(taken) OR taken < :max',
        ExpressionAttributeValues: { ':recorded': recorded, ':one': 1, ':max': max, ':entity': entity },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Gives back a slot whose call failed (nothing was sent); deletes the item once it is back where it started. */
export async function giveBackEffectSlot(processId: number, effect: string): Promise<void> {
  const key = keys.processEffectSlots(processId, effect);
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET taken = taken - :one',
        ConditionExpression: 'taken > recordedBefore',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    if (out.Attributes?.taken !== out.Attributes?.recordedBefore) return;
    await db().send(new DeleteCommand({ TableName: tableName(), Key: key, ConditionExpression: 'taken = recordedBefore' }));
  } catch (error) {
    // Another request took a slot meanwhile (the item stays), or there was nothing to give back.
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Runs `send` (the call to the outside party) holding a slot of `effect`: refuses with `refused()`
 * when none is left, and gives the slot back when `send` throws (the gateways throw before the
 * party acts: a refusal, an unreachable party).
 */
export async function withEffectSlot<T>(
  slot: { processId: number; effect: string; recorded: number; max: number },
  refused: () => Error,
  send: () => Promise<T> | T,
): Promise<T> {
  if (!(await takeEffectSlot(slot.processId, slot.effect, slot.recorded, slot.max))) throw refused();
  try {
    return await send();
  } catch (error) {
    await giveBackEffectSlot(slot.processId, slot.effect);
    throw error;
  }
}
