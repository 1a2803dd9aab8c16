import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { transferDomain } from '../../shared/transfer/transfer.ts';
import { TransferRequest } from './schema.ts';

/** POST /v2/domains/{domainName}/transfer[?quote=true] (spec 4.1, contract 3.1). */
export const handler = endpoint({ route: 'transfer', request: TransferRequest, body: jsonBody }, (request) => transferDomain(request));
