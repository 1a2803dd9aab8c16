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
 * The run's shared DynamoDB Local keeps its tables' streams off (test/support/setup.ts): its writes
 * slow down as tables with a stream come and go, since their stream records stay after the tables
 * are deleted (8,000 puts took 3.5 s on a fresh one, 9 s after one such table and 75 s after four,
 * where one table's own stream of 24,000 records cost nothing measurable). A file of its own starts
 * from no stream at all and takes its records with it.
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
