import { QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db } from '../db/client.ts';
import { parseItem, queryAll, toItem } from '../db/items.ts';
import { keys } from '../db/keys.ts';
import { DomainRecord, domainItem } from '../db/repositories/domains.ts';
import { type ProcessRecord, processItem } from '../db/repositories/processes.ts';
import { ZoneRecord, zoneEntity, zoneItem } from '../db/repositories/zones.ts';
import { TransferStatus } from '../registry/gateway.ts';
import { Handle, WireTime } from '../schemas/primitives.ts';
import { tableName } from '../db/table.ts';

/**
 * The transfer's items and transactions. A transfer in progress is two items: the process
 * (contract section 5, transfer state in `details`) and the domain's pending state, an item in the
 * domain's collection (`DOMAIN#<name>` / `TRANSFER`) whose existence is the lock: one transfer per
 * name at a time, whoever asks.
 */

const lockEntity = 'domainTransfer';

/** The domain's pending state while a transfer runs. */
export const TransferLock = v.object({
  domainName: v.string(),
  customer: Handle,
  processId: v.number(),
  status: TransferStatus,
  version: v.number(),
  requestedDate: WireTime,
  /** When the poller should ask the registry again. */
  actionDate: WireTime,
});
export type TransferLock = v.InferOutput<typeof TransferLock>;

function lockItem(lock: TransferLock): Record<string, unknown> {
  return toItem(keys.domainTransfer(lock.domainName, lock.actionDate), lockEntity, lock);
}

/** A domain name's collection in one Query: the domain (any account), its zone and a running transfer. */
export async function readDomainCollection(domainName: string): Promise<{ domain?: DomainRecord; zone?: ZoneRecord; lock?: TransferLock }> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.domainCollection(domainName).pk },
    ConsistentRead: true,
  });
  const out: { domain?: DomainRecord; zone?: ZoneRecord; lock?: TransferLock } = {};
  for (const item of items) {
    if (item.entity === 'domain') out.domain = parseItem(DomainRecord, 'domain', item);
    else if (item.entity === zoneEntity) out.zone = parseItem(ZoneRecord, zoneEntity, item);
    else if (item.entity === lockEntity) out.lock = parseItem(TransferLock, lockEntity, item);
  }
  return out;
}

/**
 * Pending transfers whose actionDate is at or before `at`, oldest first: one gsi1 Query page of at
 * most `limit` (a run takes the oldest; the rest are still due at the next run).
 */
export async function dueTransfers(at: string, limit = 100): Promise<TransferLock[]> {
  const k = keys.transfersDue(at);
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :min AND :max',
      ExpressionAttributeValues: { ':pk': k.gsi1pk, ':min': k.gsi1skMin, ':max': k.gsi1skMax },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => parseItem(TransferLock, lockEntity, item));
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Why a transaction was cancelled, per item (`ConditionalCheckFailed`, `TransactionConflict`, `None`). */
export function cancellationCodes(error: unknown): string[] | undefined {
  if ((error as Error)?.name !== 'TransactionCanceledException') return undefined;
  return ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/**
 * Runs a transaction, retrying a few times when it only lost a race (TransactionConflict), so that
 * concurrent requests end in a definite answer: committed, or cancelled by a condition.
 */
async function transact(items: TransactItem[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const codes = cancellationCodes(error);
      const conflictOnly = codes !== undefined && codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed');
      if (!conflictOnly || attempt >= 6) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20 * 2 ** attempt));
    }
  }
}

/** Why a start failed: the name is locked by a running transfer, or already held by an account. */
export type StartConflict = 'pending' | 'held';

/**
 * Writes a new transfer in one transaction: the process, the domain's pending state (only if no
 * transfer runs for the name) and a check that no account holds the name. Answers the conflict
 * instead of throwing when a condition fails.
 */
export async function startTransfer(process: ProcessRecord, lock: TransferLock): Promise<StartConflict | undefined> {
  const table = tableName();
  try {
    await transact([
      { Put: { TableName: table, Item: processItem(process), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: table, Item: lockItem(lock), ConditionExpression: 'attribute_not_exists(pk)' } },
      { ConditionCheck: { TableName: table, Key: keys.domainByName(lock.domainName), ConditionExpression: 'attribute_not_exists(pk)' } },
    ]);
    return undefined;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.[1] === 'ConditionalCheckFailed') return 'pending';
    if (codes?.[2] === 'ConditionalCheckFailed') return 'held';
    throw error;
  }
}

/**
 * Takes back a transfer the registry never accepted (its submission failed): the process and the
 * name's pending state go in one transaction, guarded by the pending state's version, so nothing
 * is left behind and a retry starts afresh. False when the transfer has moved on meanwhile.
 */
export async function abandonTransfer(process: ProcessRecord, lock: TransferLock): Promise<boolean> {
  const table = tableName();
  return guarded([
    { Delete: { TableName: table, Key: keys.processById(process.id), ConditionExpression: 'attribute_exists(pk)' } },
    { Delete: { TableName: table, Key: keys.domainTransferByName(lock.domainName), ...lockCondition(lock) } },
  ]);
}

function lockCondition(lock: TransferLock) {
  return {
    ConditionExpression: 'processId = :id AND version = :version',
    ExpressionAttributeValues: { ':id': lock.processId, ':version': lock.version },
  };
}

/**
 * Moves a running transfer on (still waiting): the process and the pending state, guarded by the
 * pending state's version. False when another worker moved it first.
 */
export async function saveWaiting(process: ProcessRecord, previous: TransferLock, next: TransferLock): Promise<boolean> {
  const table = tableName();
  return guarded([
    { Put: { TableName: table, Item: processItem(process), ConditionExpression: 'attribute_exists(pk)' } },
    // The sort key of the due index moves with actionDate, so the pending state is replaced whole.
    { Put: { TableName: table, Item: lockItem(next), ...lockCondition(previous) } },
  ]);
}

/**
 * Ends a transfer: the process, the release of the name, and on completion the domain in the
 * account and its zone, all in one transaction guarded by the pending state's version. False when
 * another worker ended it first.
 */
export async function saveFinal(
  process: ProcessRecord,
  previous: TransferLock,
  effects: { domain?: DomainRecord; zone?: { record: ZoneRecord; create: boolean } } = {},
): Promise<boolean> {
  const table = tableName();
  const items: TransactItem[] = [
    { Put: { TableName: table, Item: processItem(process), ConditionExpression: 'attribute_exists(pk)' } },
    { Delete: { TableName: table, Key: keys.domainTransferByName(previous.domainName), ...lockCondition(previous) } },
  ];
  if (effects.domain) {
    items.push({ Put: { TableName: table, Item: domainItem(effects.domain), ConditionExpression: 'attribute_not_exists(pk)' } });
  }
  if (effects.zone) {
    const { record, create } = effects.zone;
    items.push({
      Put: {
        TableName: table,
        Item: zoneItem(record),
        ...(create
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'customer = :customer', ExpressionAttributeValues: { ':customer': record.customer } }),
      },
    });
  }
  return guarded(items);
}

/** A transaction whose failed second item (the pending-state guard) means "someone else was first". */
async function guarded(items: TransactItem[]): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (error) {
    if (cancellationCodes(error)?.[1] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}
