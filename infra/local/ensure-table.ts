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
 * stream (a data dir) gets the stream turned on. `stream: false` leaves the stream off, for a table
 * no stream consumer reads (most test files: see createTableInput). True when it was created.
 */
export async function ensureTable(name: string, { stream = true }: { stream?: boolean } = {}): Promise<boolean> {
  const client = new DynamoDBClient(clientConfig());
  try {
    try {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
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
