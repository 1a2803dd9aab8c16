import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Client settings from the environment. `DYNAMODB_ENDPOINT` points at any DynamoDB (DynamoDB Local,
 * or AWS itself); without it the SDK's regional endpoint and credential chain apply.
 */
export function clientConfig(): DynamoDBClientConfig {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const config: DynamoDBClientConfig = {
    region: process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'eu-west-1',
    maxAttempts: 3,
  };
  if (endpoint) {
    config.endpoint = endpoint;
    // DynamoDB Local accepts any credentials made of letters and digits; real ones are used if set.
    if (!process.env.AWS_ACCESS_KEY_ID && isLocal(endpoint)) {
      config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    }
  }
  return config;
}

function isLocal(endpoint: string): boolean {
  try {
    const host = new URL(endpoint).hostname;
    return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.');
  } catch {
    return false;
  }
}

let documentClient: DynamoDBDocumentClient | undefined;

/** The module-scope document client, created on first use and reused across invocations. */
export function db(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig()), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}

/** Replaces the client (the admin CLI and tests point it elsewhere, or wrap it to inject faults). */
export function setDb(client: DynamoDBDocumentClient | undefined): void {
  documentClient = client;
}
