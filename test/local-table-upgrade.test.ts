import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamo, startDynamoDbLocal } from '../infra/local/dynamodb-local.ts';
import { ensureTable } from '../infra/local/ensure-table.ts';
import { clientConfig, setDb } from '../shared/db/client.ts';
import { createTableInput, table } from '../shared/db/table.ts';

// A DynamoDB Local of the file's own: adding indexes to a table is quick on an idle one (about 1.5 s
// for three here) and took more than 20 s on the run's shared one while the big-data files wrote.
let engine: LocalDynamo | undefined;
beforeAll(async () => {
  engine = await startDynamoDbLocal();
  process.env.DYNAMODB_ENDPOINT = engine.endpoint;
  setDb(undefined);
}, 120_000);
afterAll(async () => {
  setDb(undefined);
  await engine?.stop();
});

describe('a local table kept from an earlier build (a data dir)', () => {
  it('gets the indexes the definition gained since, with their projections', async () => {
    const name = `test-${randomUUID()}`;
    const client = new DynamoDBClient(clientConfig());
    try {
      const input = createTableInput(name, { stream: false });
      const earlier = input.GlobalSecondaryIndexes.filter((g) => g.IndexName !== 'gsi1list' && g.IndexName !== 'gsi2keys');
      await client.send(new CreateTableCommand({ ...input, GlobalSecondaryIndexes: earlier }));
      expect(await ensureTable(name, { stream: false })).toBe(false);
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      const indexes = (Table?.GlobalSecondaryIndexes ?? []).map((g) => ({
        name: g.IndexName,
        status: g.IndexStatus,
        projection: g.Projection?.ProjectionType,
        attributes: g.Projection?.NonKeyAttributes ?? [],
      }));
      expect(indexes.sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual(
        table.globalSecondaryIndexes
          .map((g) => ({
            name: g.indexName,
            status: 'ACTIVE',
            projection: g.projection,
            attributes: 'nonKeyAttributes' in g ? [...g.nonKeyAttributes] : [],
          }))
          .sort((a, b) => a.name.localeCompare(b.name)),
      );
    } finally {
      await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
      client.destroy();
    }
  });
});
