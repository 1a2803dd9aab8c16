import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The cold-start baseline: a function holding only the DynamoDB document client, created in
 * module scope like the real functions do, and one GetItem. Bundled exactly like them
 * (infra/bundling.ts), it is what any function of this stack must at least load.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export async function handler(event: { pk: string; sk: string }): Promise<unknown> {
  return (await client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: event }))).Item;
}
