/**
 * One fresh function instance's requests of a big price list, for bench/pricelist.ts: run in a
 * process of its own (`tsx bench/pricelist-first.ts <before|after> <customer> <coding> <runs>`, the
 * table and DynamoDB Local from the environment), so the first request is a cold function's: its
 * handler module loaded then, nothing cached. Prints one JSON line: the import, the first request,
 * and the later requests, in ms.
 */
import { performance } from 'node:perf_hooks';

const [path, customer, coding, runs] = process.argv.slice(2) as [string, string, string, string];
const started = performance.now();
const { handler } = path === 'before' ? await import('./pricelist-before.ts') : await import('../functions/pricelist/handler.ts');
const { apiEvent } = await import('../test/support/api.ts');
const { lambdaContext } = await import('../infra/local/gateway.ts');
const imported = performance.now();

async function request() {
  const event = apiEvent({
    method: 'GET',
    path: `/v2/customers/${customer}/pricelist`,
    resource: '/v2/customers/{customer}/pricelist',
    pathParameters: { customer },
    principal: { customer, user: 'bench', permissions: [] },
    headers: { 'Accept-Encoding': coding },
  });
  const t = performance.now();
  // No budget here: the bench measures how long it takes, the gateway's budget is compared after.
  const result = await handler(event, lambdaContext('bench', event.requestContext.requestId, 600_000));
  const ms = performance.now() - t;
  return {
    ms,
    status: result.statusCode,
    encoding: result.headers?.['Content-Encoding'],
    wireBytes: Buffer.from(result.body, 'base64').length,
  };
}

// The lines the functions log are not the bench's output.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (() => true) as typeof process.stdout.write;
const first = await request();
const later: number[] = [];
for (let i = 0; i < Number(runs); i++) later.push((await request()).ms);
process.stdout.write = write;
console.log(JSON.stringify({ importMs: imported - started, first, later }));
