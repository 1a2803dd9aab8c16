import { endpoint } from '../../shared/http/pipeline.ts';
import { getProcessRecord } from '../../shared/processes/get-process.ts';
import { ProcessRequest } from './schema.ts';

/** GET /v2/processes/{processId} (contract section 5): the process record, `fields` repeated or comma-separated. */
export const handler = endpoint({ route: 'process', request: ProcessRequest, repeatedQuery: true }, ({ input, principal }) =>
  getProcessRecord(input.path.processId, principal.customer, input.query.fields),
);
