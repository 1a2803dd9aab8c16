import * as v from 'valibot';
import { ExpiryView } from '../../shared/domains/lifecycle-view.ts';
import { type OperationDocs, Quote } from '../../shared/http/api-docs.ts';
import { DomainRenewRequest } from './schema.ts';

/** The `?quote=true` answer (contract section 4). */
export const RenewQuote = v.strictObject({ command: v.literal('RenewDomainCommand'), quote: Quote });

/** POST /v2/domains/{domainName}/renew in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DomainRenewRequest,
  description: [
    'Renews a domain of the caller for `period` months (the SDKs\' `domains.renew`; a number, or a string of digits as the docs type it), one of the registry\'s renewal periods (its metadata\'s `renewDomainPeriods`). `expiryDate`, when sent, guards the renewal: it is refused (400 ValidationError on `expiryDate`) unless the domain expires then, to the second; ISO 8601 (`2027-03-04T11:20:00Z`) and the PHP SDK\'s DateTime object (`{"date":"2027-03-04 11:20:00.000000","timezone_type":3,"timezone":"UTC"}`) are both accepted. A renewal that would put the expiry more than the registry\'s maximum term (10 years) ahead is refused on `period`, naming it.',
    "Charges `RENEW` per year at the caller's price list, in its currency; `?quote=true` prices it and changes nothing. The registry renews at once: 200 with `{domainName, expiryDate}`, the completed process (type `domain`, action `renew`, the charge in its billables) in `X-Process-Id`, and a `RenewDomainEvent` notification. A registry refusal charges nothing. A domain in its redemption period is restored, not renewed (`POST .../restore`); `CLIENT_RENEW_PROHIBITED` refuses it. Send `Idempotency-Key` to make retries safe: a retry never renews or charges twice. Another customer's domain answers 404 like a missing one.",
  ].join('\n\n'),
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'Renewed: the new expiry (process id in `x-process-id`); or with `?quote=true` the quote.',
      headers: [{ name: 'x-process-id' }, { name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: v.union([ExpiryView, RenewQuote]),
          examples: {
            renewed: { domainName: 'demo-shop.nl', expiryDate: '2028-03-04T11:20:00Z' },
            quote: {
              command: 'RenewDomainCommand',
              quote: {
                total: 549,
                currency: 'EUR',
                billables: [
                  { product: 'domain_nl', action: 'RENEW', quantity: 1, amount: 549, providerName: 'sidn', refundable: true, total: 549 },
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
    body: {
      year: { summary: 'One year, as the WHMCS module sends it', value: { period: 12 } },
      guarded: { summary: 'With the expiry guard, as ISO 8601', value: { period: 12, expiryDate: '2027-03-04T11:20:00Z' } },
      php: {
        summary: 'With the expiry guard as the PHP SDK sends it',
        value: { period: 12, expiryDate: { date: '2027-03-04 11:20:00.000000', timezone_type: 3, timezone: 'UTC' } },
      },
    },
  },
  components: { RenewQuote },
};
