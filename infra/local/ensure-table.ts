import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { clientConfig } from '../../shared/db/client.ts';
import { createTableInput, table } from '../../shared/db/table.ts';

/**
 * Creates the table from the shared definition when it does not exist yet (the same definition the
 * CDK stack deploys), with its TTL attribute and its stream. A table kept from a build without the
 * stream (a data dir) gets the stream turned on, and one without an index the definition has
 * gained since (gsi1list, ...) gets it, one index per update as DynamoDB takes them. `stream: false` leaves the stream off, for a table
 * no stream consumer reads (most test files: see createTableInput). True when it was created.
 */
export async function ensureTable(name: string, { stream = true }: { stream?: boolean } = {}): Promise<boolean> {
  const client = new DynamoDBClient(clientConfig());
  try {
    try {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      await addMissingIndexes(client, name, new Set((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName)));
      if (stream && !Table?.StreamSpecification?.StreamEnabled) {
        await client.send(
          new UpdateTableCommand({
            TableName: name,
            StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamViewType },
          }),
        );
      }
      return false;
    } catch (error) {
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    }
    try {
      await client.send(new CreateTableCommand(createTableInput(name, { stream })));
    } catch (error) {
      // Another process created it in the meantime: that is fine.
      if ((error as Error).name !== 'ResourceInUseException') throw error;
      return false;
    }
    await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: name });
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      }),
    );
    return true;
  } finally {
    client.destroy();
  }
}

/** Adds the indexes of the definition a kept table lacks, one UpdateTable each, waiting for each to be ACTIVE. */
async function addMissingIndexes(client: DynamoDBClient, name: string, present: Set<string | undefined>): Promise<void> {
  const input = createTableInput(name);
  for (const index of input.GlobalSecondaryIndexes.filter((g) => !present.has(g.IndexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName: name,
        AttributeDefinitions: input.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    for (let attempt = 0; ; attempt++) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      if (Table?.GlobalSecondaryIndexes?.find((g) => g.IndexName === index.IndexName)?.IndexStatus === 'ACTIVE') break;
      if (attempt >= 600) throw new Error(`The index ${index.IndexName} of table ${name} did not become ACTIVE`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
