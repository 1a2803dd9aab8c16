import { afterAll, beforeAll } from 'vitest';
import { demoDataFile, loadDataset, readDatasetFile } from '../../infra/dataset.ts';
import { type LocalDynamo, startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { ensureTable } from '../../infra/local/ensure-table.ts';
import { setDb } from '../../shared/db/client.ts';
import { tableName } from '../../shared/db/table.ts';

/**
 * For a test file whose table feeds stream consumers (call it at the top of the file, before the
 * file's own hooks): the file's table, with its stream on and the demo data, in a DynamoDB Local of
 * the file's own, stopped when the file ends.
 *
 * The run's shared DynamoDB Local keeps its tables' streams off (test/support/setup.ts): it keeps
 * every stream record it ever wrote, deleted tables' too, and its writes slow down as they pile up
 * (8,000 puts took 3.5 s on a fresh one, 9 s after one such table and 75 s after four). A file of
 * its own starts from an empty stream and takes its records with it.
 */
export function withTableStream(): void {
  let engine: LocalDynamo | undefined;
  beforeAll(async () => {
    engine = await startDynamoDbLocal();
    process.env.DYNAMODB_ENDPOINT = engine.endpoint;
    setDb(undefined);
    await ensureTable(tableName(), { stream: true });
    await loadDataset(await readDatasetFile(demoDataFile));
  }, 120_000);
  afterAll(async () => {
    setDb(undefined);
    await engine?.stop();
  });
}
