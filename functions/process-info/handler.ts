import { endpoint } from '../../shared/http/pipeline.ts';
import { processInfo } from '../../shared/processes/process-info.ts';
import { ProcessInfoRequest } from './schema.ts';

/** GET /v2/processes/{processId}/info (spec 4.3, contract 3.3). */
export const handler = endpoint({ route: 'process-info', request: ProcessInfoRequest }, ({ input, principal }) =>
  processInfo(input.path.processId, principal.customer),
);
