import { endpoint } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { processInfo } from './process-info.ts';
import { ProcessInfoRequest } from './schema.ts';

export const handler = endpoint({ route: 'process-info', request: ProcessInfoRequest }, async ({ input, principal }) =>
  ok(await processInfo(input.path.processId, principal.customer)),
);
