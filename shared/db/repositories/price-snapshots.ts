import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { type PriceSnapshotBuilt, PriceSnapshotHead, priceSnapshotPartBytes } from '../../model/price-snapshot.ts';
import { db } from '../client.ts';
import { batchWriteAll, parseItem, queryAll } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

/**
 * A customer's price list snapshot (shared/model/price-snapshot.ts): its head and its parts, in
 * the partition `PRICESNAPSHOT#<customer>`. Written in two steps that no reader sees half done:
 * the parts of a new generation first (no head names them yet), then the head switched to them in
 * one conditional write; the parts of earlier generations are deleted after the switch.
 */

const headEntity = 'priceSnapshot';
const partEntity = 'priceSnapshotPart';

const PartItem = v.object({ sk: v.string(), data: v.instance(Uint8Array) });

/** What one read of the snapshot partition found. */
export interface StoredPriceSnapshot {
  /** The head (version 0 and nothing built when absent). */
  head: PriceSnapshotHead;
  /** The built snapshot's bytes (gzip, then br), when its parts are all there. */
  bytes?: Buffer;
  /** Parts of other generations (of an earlier snapshot, or of a build that failed): deleted by the next switch. */
  leftovers: { pk: string; sk: string }[];
}

/**
 * The snapshot partition in one Query (a few items: the head and the parts of at most two
 * generations), strongly consistent, so a price write finished before the request is seen.
 */
export async function readPriceSnapshot(customer: string): Promise<StoredPriceSnapshot> {
  const pk = keys.priceSnapshot(customer).pk;
  const items = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true });
  const headItem = items.find((item) => item.sk === 'HEAD');
  const head = headItem ? parseItem(PriceSnapshotHead, headEntity, headItem) : { customer, version: 0 };
  const built = head.built;
  const prefix = built ? `PART#${built.generation}#` : undefined;
  const parts: Buffer[] = [];
  const leftovers: { pk: string; sk: string }[] = [];
  for (const item of items) {
    if (item.entity !== partEntity) continue;
    const part = v.parse(PartItem, item);
    if (prefix !== undefined && part.sk.startsWith(prefix)) parts.push(Buffer.from(part.data));
    else leftovers.push({ pk, sk: part.sk });
  }
  if (!built || parts.length !== built.parts) return { head, leftovers };
  const bytes = Buffer.concat(parts);
  return bytes.length === built.gzipBytes + built.brBytes ? { head, bytes, leftovers } : { head, leftovers };
}

/**
 * Raises the version of a customer's price list: every snapshot built before is stale from now on.
 * Called after every write of the customer's prices or promos. Answers the new version.
 */
export async function raisePriceListVersion(customer: string): Promise<number> {
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.priceSnapshotHead(customer),
      UpdateExpression: 'ADD #version :one SET customer = :customer, entity = :entity',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':one': 1, ':customer': customer, ':entity': headEntity },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.version);
}

/** A snapshot to store: what the head will say of it, and its bytes (gzip, then br). */
export type NewPriceSnapshot = Omit<PriceSnapshotBuilt, 'generation' | 'parts'>;

/**
 * Stores a snapshot built from the list at `snapshot.version`, read after `seen`: its parts under
 * a new generation, then the head switched to it if the list's version is still that one and no
 * other snapshot was switched in since `seen` (else its parts are deleted again and false is
 * answered: a newer write or build won). After the switch, the parts of other generations go.
 */
export async function storePriceSnapshot(
  customer: string,
  seen: StoredPriceSnapshot,
  snapshot: NewPriceSnapshot,
  bytes: Buffer,
): Promise<boolean> {
  const generation = randomUUID();
  const parts: { pk: string; sk: string }[] = [];
  const puts = [];
  for (let offset = 0, n = 0; offset < bytes.length || n === 0; offset += priceSnapshotPartBytes, n++) {
    const key = keys.priceSnapshotPart(customer, generation, n);
    parts.push({ pk: key.pk, sk: key.sk });
    puts.push({ put: { ...key, entity: partEntity, customer, data: bytes.subarray(offset, offset + priceSnapshotPartBytes) } });
  }
  await batchWriteAll(puts);
  const built: PriceSnapshotBuilt = { ...snapshot, generation, parts: parts.length };
  const seenGeneration = seen.head.built?.generation;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.priceSnapshotHead(customer),
        UpdateExpression: 'SET built = :built, #version = :version, customer = :customer, entity = :entity',
        ConditionExpression: `(attribute_not_exists(#version) OR #version = :version) AND ${
          seenGeneration === undefined ? 'attribute_not_exists(built)' : 'built.generation = :seen'
        }`,
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: {
          ':built': built,
          ':version': snapshot.version,
          ':customer': customer,
          ':entity': headEntity,
          ...(seenGeneration === undefined ? {} : { ':seen': seenGeneration }),
        },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    await batchWriteAll(parts.map((key) => ({ delete: key })));
    return false;
  }
  const previous = seen.head.built ? keysOfGeneration(customer, seen.head.built) : [];
  await batchWriteAll([...previous, ...seen.leftovers].map((key) => ({ delete: key })));
  return true;
}

function keysOfGeneration(customer: string, built: PriceSnapshotBuilt): { pk: string; sk: string }[] {
  return Array.from({ length: built.parts }, (_, n) => {
    const key = keys.priceSnapshotPart(customer, built.generation, n);
    return { pk: key.pk, sk: key.sk };
  });
}
