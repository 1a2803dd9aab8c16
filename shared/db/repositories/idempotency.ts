import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import {
  IdempotencyKeyRecord,
  type KeyCompleted,
  type KeyInProgress,
  type KeyScope,
  type StoredAnswer,
} from '../../model/idempotency-key.ts';
import { db } from '../client.ts';
import { toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import type { Commitment } from './commit-with.ts';

/**
 * The Idempotency-Key records (shared/model/idempotency-key.ts): one item per key, in a partition
 * of its own. An attempt claims a key with a conditional put, renews its lease while it runs, and
 * either completes the key inside its work's own transaction (`completion`) or releases it. Every
 * write after the claim is conditioned on the attempt still holding the key, so an attempt that
 * was taken over can neither complete nor release it: at most one attempt's work commits per key.
 */

const entity = 'idempotencyKey';
/** How long a key and its answer are kept (seconds). */
export const keyLifetimeSeconds = 24 * 60 * 60;

/** An attempt's hold on a key: the key, the attempt's id and the request it runs. */
export interface Claim {
  scope: KeyScope;
  attempt: string;
  requestHash: string;
}

/** The item key of a scope: the operation in clear, the customer, user and key hashed (any characters, fixed length). */
function keyOf(scope: KeyScope) {
  const hash = createHash('sha256')
    .update(JSON.stringify([scope.customer, scope.user, scope.key]))
    .digest('base64url');
  const { pk, sk } = keys.idempotency(`${scope.operation}#${hash}`);
  return { pk, sk };
}

const names = { '#state': 'state' };
const heldBy = (claim: Claim) => ({
  ConditionExpression: 'attempt = :attempt AND #state = :inProgress',
  ExpressionAttributeNames: names,
  values: { ':attempt': claim.attempt, ':inProgress': 'IN_PROGRESS' },
});

const isConditionFailure = (error: unknown) => (error as Error)?.name === 'ConditionalCheckFailedException';
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Claims a key for an attempt: when no live record has it, or when the record is a claim whose lease
 * has run out for the same request (an attempt that died is taken over). A record of another kind
 * under the key (the earlier Powertools records, which kept no entity tag) is replaced. True when
 * claimed; false when a live record holds the key (read it with readKey).
 */
export async function claimKey(claim: Claim, leaseExpiresAtMs: number): Promise<boolean> {
  const record: KeyInProgress = {
    state: 'IN_PROGRESS',
    attempt: claim.attempt,
    requestHash: claim.requestHash,
    leaseExpiresAtMs,
    expiresAt: nowSeconds() + keyLifetimeSeconds,
  };
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: toItem(keyOf(claim.scope), entity, record),
        ConditionExpression:
          'attribute_not_exists(pk) OR attribute_not_exists(entity) OR entity <> :entity OR expiresAt < :nowSeconds OR (#state = :inProgress AND leaseExpiresAtMs < :nowMs AND requestHash = :hash)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':nowSeconds': nowSeconds(),
          ':nowMs': Date.now(),
          ':inProgress': 'IN_PROGRESS',
          ':hash': claim.requestHash,
          ':entity': entity,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** A key's record as it stands (strongly consistent); undefined when there is none or it has expired. */
export async function readKey(scope: KeyScope): Promise<IdempotencyKeyRecord | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keyOf(scope), ConsistentRead: true }));
  if (!out.Item || out.Item.entity !== entity) return undefined;
  const record = v.parse(IdempotencyKeyRecord, out.Item);
  return record.expiresAt < nowSeconds() ? undefined : record;
}

/** Renews the attempt's lease; false when it no longer holds the key (taken over, completed or released). */
export async function renewLease(claim: Claim, leaseExpiresAtMs: number): Promise<boolean> {
  const { values, ...condition } = heldBy(claim);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(claim.scope),
        UpdateExpression: 'SET leaseExpiresAtMs = :lease',
        ...condition,
        ExpressionAttributeValues: { ...values, ':lease': leaseExpiresAtMs },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Gives a key up after the attempt's request failed, so a retry runs it again. When the attempt no
 * longer holds the key, nothing is deleted and the record as it stands is answered: completed by
 * this very attempt (its transaction committed although the call reported a failure), or another
 * attempt's.
 */
export async function releaseKey(claim: Claim): Promise<{ released: true } | { released: false; record?: IdempotencyKeyRecord }> {
  const { values, ...condition } = heldBy(claim);
  try {
    await db().send(
      new DeleteCommand({ TableName: tableName(), Key: keyOf(claim.scope), ...condition, ExpressionAttributeValues: values }),
    );
    return { released: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const record = await readKey(claim.scope);
    return record ? { released: false, record } : { released: false };
  }
}

/** The completed record of a key, written only while the attempt still holds the key. */
function completedPut(claim: Claim, answer: StoredAnswer) {
  const record: KeyCompleted = {
    state: 'COMPLETED',
    attempt: claim.attempt,
    requestHash: claim.requestHash,
    answer,
    expiresAt: nowSeconds() + keyLifetimeSeconds,
  };
  const { values, ...condition } = heldBy(claim);
  return { TableName: tableName(), Item: toItem(keyOf(claim.scope), entity, record), ...condition, ExpressionAttributeValues: values };
}

/**
 * The key's completion with its answer, to commit in the work's own transaction (a Commitment the
 * use case passes to its repository): the work and the answer commit together, or neither does.
 * The transaction is cancelled when the attempt no longer holds the key.
 */
export function completion(claim: Claim, answer: StoredAnswer): Commitment {
  return { items: [{ Put: completedPut(claim, answer) }] };
}

/**
 * Completes the key on its own, for work that committed without it (an outcome that wrote
 * nothing). False when the attempt no longer holds the key.
 */
export async function completeKey(claim: Claim, answer: StoredAnswer): Promise<boolean> {
  try {
    await db().send(new PutCommand(completedPut(claim, answer)));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
