import { handler } from '../../functions/processes/handler.ts';
import { apiEvent, invoke } from './api.ts';

/** GET /v2/processes through the real handler for any customer (its API key's principal), with repeated parameters as the SDKs send them. */
export async function listProcessesOf(customer: string, query: Record<string, string | string[]>) {
  const multi = Object.fromEntries(Object.entries(query).map(([k, val]) => [k, Array.isArray(val) ? val : [val]]));
  const event = apiEvent({
    method: 'GET',
    path: '/v2/processes',
    resource: '/v2/processes',
    principal: { customer, user: 'lister', permissions: [] },
  });
  event.multiValueQueryStringParameters = multi;
  event.queryStringParameters = Object.fromEntries(Object.entries(multi).map(([k, vals]) => [k, vals[vals.length - 1] as string]));
  const res = await invoke(handler, event);
  if (res.status !== 200) throw new Error(`GET /v2/processes answered ${res.status}: ${res.raw}`);
  return res.body as { entities: Record<string, unknown>[]; pagination: { limit: number; offset: number; total?: number } };
}
