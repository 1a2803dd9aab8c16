import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

/** One DynamoDB Local for the whole run (each test file then gets a table of its own). */
export default async function setup(project: TestProject) {
  const external = process.env.TEST_DYNAMODB_ENDPOINT;
  const dynamo = external ? undefined : await startDynamoDbLocal();
  project.provide('dynamodbEndpoint', external ?? (dynamo as { endpoint: string }).endpoint);
  return async () => {
    await dynamo?.stop();
  };
}
