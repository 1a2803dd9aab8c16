import { randomUUID } from 'node:crypto';
import { handler as processes } from '../functions/processes/handler.ts';
import { lambdaContext } from '../infra/local/gateway.ts';
import { deleteProcessMarks, hasMarks, markProcessPositions } from '../shared/db/repositories/processes.ts';
import { apiEvent } from '../test/support/api.ts';
import { fullItemsRead, recordTableCalls } from '../test/support/sdk-calls.ts';
import { loadScaleProcesses, scaleCustomer, scaleProcess } from './process-scale.ts';
import { kb, ms, percentile, quietly, table } from './report.ts';
import { processListShapes, scaleProcesses, withScale } from './scenarios.ts';

/**
 * The process list at real sizes (docs/performance.md): a customer with 10,000 processes and one
 * with 100,000, every listing shape of bench/scenarios.ts through the real handler: calls, index
 * entries read (keys-only indexes and the summaries of gsi1list), whole items read, what DynamoDB
 * returned, the median time and the answer's size. A request that fails is a row of its own and
 * the table goes on.
 */

type Answer = { statusCode: number; body: string };

function listEvent(customer: string, query: string) {
  const params = new URLSearchParams(query);
  const event = apiEvent({
    method: 'GET',
    path: '/v2/processes',
    resource: '/v2/processes',
    principal: { customer, user: 'bench', permissions: [] },
  });
  const multi: Record<string, string[]> = {};
  for (const k of new Set(params.keys())) multi[k] = params.getAll(k);
  const any = Object.keys(multi).length > 0;
  event.multiValueQueryStringParameters = any ? multi : null;
  event.queryStringParameters = any ? Object.fromEntries(Object.entries(multi).map(([k, vals]) => [k, vals.at(-1) as string])) : null;
  return event;
}

/** Each size: the customer, its first id, the runs per shape (the bigger, the fewer), and how it is loaded. */
const sizes = [
  { count: scaleProcesses, customer: scaleCustomer, first: 100_001, runs: 20, load: withScale },
  { count: 100_000, customer: 'scale100k', first: 1_000_001, runs: 10, load: () => loadScaleProcesses(100_000, 'scale100k', 1_000_001) },
];

/** `BENCH_PROCESS_LIST_RUNS`: the timed runs per shape at every size (a quick comparison on a loaded machine). */
const runsOverride = Number(process.env.BENCH_PROCESS_LIST_RUNS ?? 0);

/** Runs the section for every size, or for the sizes (process counts) given. */
export async function benchProcessList(only?: readonly number[]): Promise<void> {
  for (const chosen of sizes.filter((s) => only === undefined || only.length === 0 || only.includes(s.count))) {
    const size = Number.isInteger(runsOverride) && runsOverride > 0 ? { ...chosen, runs: runsOverride } : chosen;
    const loadStart = performance.now();
    await quietly(size.load);
    const loadSeconds = ((performance.now() - loadStart) / 1000).toFixed(0);
    const identifier = scaleProcess(4321, size.customer, size.first).identifier;
    const rows: (string | number)[][] = [];
    // Before and after in one run: the default order's deep offsets first without the listing's
    // marks (every key before the offset counted, as before), then with them (every shape).
    const deep = processListShapes(identifier, size.count).filter(([label]) => /^offset [1-9]/.test(label));
    await deleteProcessMarks(size.customer);
    const shapes: [string, string, boolean][] = [
      ...deep.map(([label, query]): [string, string, boolean] => [`${label}, as before (no marks)`, query, false]),
      ...processListShapes(identifier, size.count).map(([label, query]): [string, string, boolean] => [label, query, true]),
    ];
    for (const [label, query, marked] of shapes) {
      if (marked && !(await hasMarks(size.customer))) await markProcessPositions(size.customer);
      const once = async () =>
        (await processes(listEvent(size.customer, query), lambdaContext('bench', randomUUID()))) as unknown as Answer;
      try {
        const { result, details } = await quietly(() => recordTableCalls(once));
        const read = details.reduce((n, d) => n + d.itemsRead, 0);
        const whole = fullItemsRead(details);
        const counted = [details.length, read - whole, whole, kb(details.reduce((n, d) => n + d.bytesAnswered, 0))];
        if (result.statusCode !== 200) {
          const type = (JSON.parse(result.body) as { type?: string }).type ?? '';
          rows.push([label, `failed: ${result.statusCode} ${type}`, ...counted, '-', '-']);
          continue;
        }
        const samples: number[] = [];
        await quietly(async () => {
          for (let i = 0; i < size.runs + 3; i++) {
            const t = performance.now();
            await once();
            if (i >= 3) samples.push(performance.now() - t);
          }
        });
        samples.sort((x, y) => x - y);
        rows.push([label, 200, ...counted, ms(percentile(samples, 50)), kb(Buffer.byteLength(result.body))]);
      } catch (error) {
        rows.push([label, `failed: ${(error as Error).name}: ${(error as Error).message.slice(0, 80)}`, '-', '-', '-', '-', '-', '-']);
      }
    }
    table(
      `Scale: the process list of a customer with ${size.count.toLocaleString('en')} processes (through the handler, ${size.runs} runs each after 3 warm-up runs; no Scan; loaded in ${loadSeconds} s)`,
      ['request', 'status', 'calls', 'index entries read', 'whole items read', 'KB returned by DynamoDB', 'p50 ms', 'answer KB'],
      rows,
    );
  }
}
