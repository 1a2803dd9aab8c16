/**
 * POST /v2/domains/{domainName}/transfer[?quote=true]: the request schema. It lives with the use case
 * (shared/transfer/request.ts) because the use case's types come from it.
 */
export { TransferRequest } from '../../shared/transfer/request.ts';
