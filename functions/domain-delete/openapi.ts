import { DeletedView } from '../../shared/domains/lifecycle-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { DomainDeleteRequest } from './schema.ts';

/** DELETE /v2/domains/{domainName} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DomainDeleteRequest,
  description: [
    'Deletes a domain of the caller (the SDKs\' `domains.delete`): the registry deletes it into its redemption period, and the domain shows `REDEMPTION_PERIOD` until the period ends (the registry\'s `redemptionPeriod` days, in its TLD metadata). Until then `POST /v2/domains/{domainName}/restore` brings it back; after it the expiry job removes it and the name is free again (docs/domains.md, "Life cycle").',
    "200 with `{domainName}`, the completed process (type `domain`, action `delete`) in `X-Process-Id`, and a `DeleteDomainEvent` notification. Nothing is charged. A domain with `CLIENT_DELETE_PROHIBITED` (or the registry's delete lock) is not deleted: 400 ObjectStatusProhibitsOperation; lift the lock with an update first. Send `Idempotency-Key` to make retries safe. Another customer's domain answers 404 like a missing one.",
  ].join('\n\n'),
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'Deleted into the redemption period (process id in `x-process-id`).',
      headers: [{ name: 'x-process-id' }, { name: 'Idempotent-Replayed' }],
      content: { 'application/json': { json: DeletedView, examples: { deleted: { domainName: 'demo-shop.nl' } } } },
    },
  },
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  pathObject: true,
  requestHeaders: [
    {
      name: 'Idempotency-Key',
      description: 'Makes a retry safe: the same key within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
      example: '0f5b7c1e-3a2d-4e8f-9b6a-1c2d3e4f5a6b',
    },
  ],
  examples: { path: { domainName: 'demo-shop.nl' } },
};
