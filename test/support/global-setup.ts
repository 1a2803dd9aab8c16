import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

/**
 * One DynamoDB Local for the whole run (each test file then gets a table of its own), and one
 * temporary folder of the run's own: TMPDIR points at it for every test worker and every process
 * they start, so whatever they leave there (CDK's `cdk.out*`, `nag-*`, `export-*`, `dataset-*`,
 * `sandbox-*`, ...) goes when the run ends, and nothing of another run on the machine is touched.
 */
export default async function setup(project: TestProject) {
  const previousTmp = process.env.TMPDIR;
  const runTmp = mkdtempSync(join(tmpdir(), 'registrar-tests-'));
  process.env.TMPDIR = runTmp;
  const external = process.env.TEST_DYNAMODB_ENDPOINT;
  const dynamo = external ? undefined : await startDynamoDbLocal();
  project.provide('dynamodbEndpoint', external ?? (dynamo as { endpoint: string }).endpoint);
  return async () => {
    await dynamo?.stop();
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
    rmSync(runTmp, { recursive: true, force: true });
  };
}
