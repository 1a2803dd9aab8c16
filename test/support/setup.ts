import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, inject, vi } from 'vitest';
import { demoDataFile, loadDataset, readDatasetFile } from '../../infra/dataset.ts';
import { ensureTable } from '../../infra/local/ensure-table.ts';
import { clientConfig } from '../../shared/db/client.ts';
import { functionTimeoutSeconds } from '../../shared/http/function-budget.ts';
import { contention } from './contention.ts';

// Every test file runs against its own fresh table holding the demo dataset, so files never
// see each other's writes and can run in parallel.
const fileEndpoint = inject('dynamodbEndpoint');
process.env.DYNAMODB_ENDPOINT = fileEndpoint;
const fileTable = `test-${randomUUID()}`;
process.env.TABLE_NAME = fileTable;

// Set-up gets what it needs: a fresh table and the demo data take seconds on an idle DynamoDB
// Local and minutes on one that a whole team's runs share; the tests' own budgets stay as they are.
beforeAll(async () => {
  // No stream: only the files that feed stream consumers turn it on, on an engine of their own
  // (test/support/table-stream.ts).
  await ensureTable(process.env.TABLE_NAME as string, { stream: false });
  await loadDataset(await readDatasetFile(demoDataFile));
}, 600_000);

// The table goes with its file: DynamoDB Local keeps every table and its stream in the one
// process, and slows down as they pile up over a run (a file's big writes took minutes late in a
// run that took seconds early on).
afterAll(async () => {
  // The run's DynamoDB Local, wherever the file pointed DYNAMODB_ENDPOINT since (a sandbox of its own).
  const client = new DynamoDBClient({ ...clientConfig(), endpoint: fileEndpoint });
  try {
    await client.send(new DeleteTableCommand({ TableName: fileTable }));
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  } finally {
    client.destroy();
  }
});

// Time budgets in proportion to the machine's contention now (test/support/contention.ts): the
// functions' timeout as the local gateway and `invoke` emulate it, and vitest's own timeouts. A
// file that sets LOCAL_FUNCTION_TIMEOUT_MS itself (the races) keeps its own.
const slowdown = contention();
process.env.TEST_SLOWDOWN = String(slowdown);
process.env.LOCAL_FUNCTION_TIMEOUT_MS ??= String(Math.round(functionTimeoutSeconds * 1000 * slowdown));
vi.setConfig({ testTimeout: Math.round(20_000 * slowdown), hookTimeout: Math.round(60_000 * slowdown) });
