import { endpoint } from '../../shared/http/pipeline.ts';
import { listProcesses } from '../../shared/processes/list-processes.ts';
import { ProcessListRequest } from './schema.ts';

/** GET /v2/processes: the caller's processes, a page at a time. */
export const handler = endpoint({ route: 'processes', request: ProcessListRequest, repeatedQuery: true }, ({ input, principal }) =>
  listProcesses(principal.customer, input.query),
);
