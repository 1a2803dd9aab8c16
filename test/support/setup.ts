import { randomUUID } from 'node:crypto';
import { beforeAll, inject } from 'vitest';
import { demoDataFile, loadDataset, readDatasetFile } from '../../infra/dataset.ts';
import { ensureTable } from '../../infra/local/ensure-table.ts';

// Every test file runs against its own fresh table holding the demo dataset, so files never
// see each other's writes and can run in parallel.
process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
process.env.TABLE_NAME = `test-${randomUUID()}`;

beforeAll(async () => {
  await ensureTable(process.env.TABLE_NAME as string);
  await loadDataset(await readDatasetFile(demoDataFile));
});
