import * as v from 'valibot';
import { ExpiryView } from '../../shared/domains/lifecycle-view.ts';
import { type OperationDocs, Quote } from '../../shared/http/api-docs.ts';
import { DomainRestoreRequest } from './schema.ts';

/** The `?quote=true` answer (contract section 4). */
export const RestoreQuote = v.strictObject({ command: v.literal('RestoreDomainCommand'), quote: Quote });

/** POST /v2/domains/{domainName}/restore in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DomainRestoreRequest,
  description: [
    "Restores a domain of the caller from its redemption period (`REDEMPTION_PERIOD`: deleted, or not renewed after its grace), before the period ends (the SDKs' `domains.restore`). `reason` is required (the registry's restore report). Charges `RESTORE` once at the caller's price list, in its currency; `?quote=true` prices it and changes nothing.",
    "200 with `{domainName, expiryDate}` (a name whose expiry passed comes back renewed for a year, as registries restore), the completed process (type `domain`, action `restore`, the charge in its billables) in `X-Process-Id`, and a `RestoreDomainEvent` notification. A domain not in redemption answers 400 ObjectStatusProhibitsOperation; one whose redemption ended is gone (404). Send `Idempotency-Key` to make retries safe. Another customer's domain answers 404 like a missing one.",
  ].join('\n\n'),
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'Restored: its expiry (process id in `x-process-id`); or with `?quote=true` the quote.',
      headers: [{ name: 'x-process-id' }, { name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: v.union([ExpiryView, RestoreQuote]),
          examples: {
            restored: { domainName: 'demo-shop.nl', expiryDate: '2027-03-04T11:20:00Z' },
            quote: {
              command: 'RestoreDomainCommand',
              quote: {
                total: 1500,
                currency: 'EUR',
                billables: [
                  {
                    product: 'domain_nl',
                    action: 'RESTORE',
                    quantity: 1,
                    amount: 1500,
                    providerName: 'sidn',
                    refundable: true,
                    total: 1500,
                  },
                ],
              },
            },
          },
        },
      },
    },
  },
  errors: [
    'ConstraintViolationException',
    'ValidationError',
    'ObjectDoesNotExist',
    'ObjectStatusProhibitsOperation',
    'BillableAcknowledgmentNeededException',
  ],
  pathObject: true,
  requestHeaders: [
    {
      name: 'Idempotency-Key',
      description: 'Makes a retry safe: the same key and body within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
      example: '0f5b7c1e-3a2d-4e8f-9b6a-1c2d3e4f5a6b',
    },
  ],
  examples: {
    path: { domainName: 'demo-shop.nl' },
    body: { whmcs: { summary: 'As the WHMCS module sends it', value: { reason: 'Renewal requested by the registrant after expiry' } } },
  },
  components: { RestoreQuote },
};
