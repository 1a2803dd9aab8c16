import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { db } from '../client.ts';
import { keys } from '../keys.ts';
import { table, tableName } from '../table.ts';

/**
 * The persistence layer on our single table. Powertools puts composite-key records in one static
 * partition; `getKey` is overridden so every record gets its own partition with our key prefix
 * (shared/db/keys.ts). The TTL attribute is the table's `expiresAt` (epoch seconds).
 */
class SingleTablePersistenceLayer extends DynamoDBPersistenceLayer {
  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    const { pk, sk } = keys.idempotency(idempotencyKey);
    return { [table.partitionKey]: { S: pk }, [table.sortKey]: { S: sk } };
  }
}

// One layer per operation and client: a layer remembers its configuration and key prefix, and
// tests may swap the client (setDb) to inject faults.
const layers = new WeakMap<object, Map<string, SingleTablePersistenceLayer>>();

/** The idempotency records of one operation (Powertools for AWS Lambda's persistence layer on our table). */
export function idempotencyStore(operation: string): DynamoDBPersistenceLayer {
  const client = db();
  let byOperation = layers.get(client);
  if (!byOperation) {
    byOperation = new Map();
    layers.set(client, byOperation);
  }
  const name = `${tableName()}#${operation}`;
  let layer = byOperation.get(name);
  if (!layer) {
    layer = new SingleTablePersistenceLayer({
      tableName: tableName(),
      keyAttr: table.partitionKey,
      sortKeyAttr: table.sortKey,
      expiryAttr: table.ttlAttribute,
      statusAttr: 'idempotencyStatus',
      inProgressExpiryAttr: 'inProgressExpiresAtMs',
      dataAttr: 'reply',
      validationKeyAttr: 'requestHash',
      // The document client shares its middleware stack and config with the plain client it wraps,
      // and the layer sends plain (marshalled) commands: the same client, retries and fault injection.
      awsSdkV3Client: client as unknown as DynamoDBClient,
    });
    byOperation.set(name, layer);
  }
  return layer;
}
