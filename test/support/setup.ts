import { randomUUID } from 'node:crypto';
import { beforeAll, inject, vi } from 'vitest';
import { demoDataFile, loadDataset, readDatasetFile } from '../../infra/dataset.ts';
import { ensureTable } from '../../infra/local/ensure-table.ts';
import { functionTimeoutSeconds } from '../../shared/http/function-budget.ts';
import { contention } from './contention.ts';

// Every test file runs against its own fresh table holding the demo dataset, so files never
// see each other's writes and can run in parallel.
process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
process.env.TABLE_NAME = `test-${randomUUID()}`;

// Set-up gets what it needs: a fresh table and the demo data take seconds on an idle DynamoDB
// Local and minutes on one that a whole team's runs share; the tests' own budgets stay as they are.
beforeAll(async () => {
  await ensureTable(process.env.TABLE_NAME as string);
  await loadDataset(await readDatasetFile(demoDataFile));
}, 600_000);

// Time budgets in proportion to the machine's contention now (test/support/contention.ts): the
// functions' timeout as the local gateway and `invoke` emulate it, and vitest's own timeouts. A
// file that sets LOCAL_FUNCTION_TIMEOUT_MS itself (the races) keeps its own.
const slowdown = contention();
process.env.TEST_SLOWDOWN = String(slowdown);
process.env.LOCAL_FUNCTION_TIMEOUT_MS ??= String(Math.round(functionTimeoutSeconds * 1000 * slowdown));
vi.setConfig({ testTimeout: Math.round(20_000 * slowdown), hookTimeout: Math.round(60_000 * slowdown) });
