import * as v from 'valibot';
import { type OperationDocs, Quote } from '../../shared/http/api-docs.ts';
import { TransferPlan, TransferResult, ZonePlan } from '../../shared/model/transfer.ts';
import { TransferRequest } from './schema.ts';

/** The `?quote=true` answer: contract section 4 plus the plan of what the transfer will change. */
export const TransferQuote = v.strictObject({
  command: v.literal('DomainTransfer'),
  quote: Quote,
  plan: TransferPlan,
});

const requestedDate = '2026-11-21T21:03:29Z';

/** POST /v2/domains/{domainName}/transfer in the OpenAPI document. */
export const docs: OperationDocs = {
  request: TransferRequest,
  description:
    "Transfers a domain into the caller's account (spec 2.1-2.6, contract 3.1). 200 when the registry completes it at once, 202 while it is pending (the scheduled poller moves it on). `?quote=true` validates everything, changes nothing and answers the quote and the plan. Charges the caller's own price list does not predict (premium names) need acknowledgment: echo `quote.billables` in `billables`. Send `Idempotency-Key` to make retries safe.",
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'Completed at once (transfer result with `expiryDate`), or with `?quote=true` the quote and plan.',
      headers: [{ name: 'x-process-id' }, { name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: v.union([TransferResult, TransferQuote]),
          examples: {
            completed: {
              domainName: 'transfer-now.nl',
              status: 'completed',
              requestedDate,
              expiryDate: '2028-02-14T10:00:00Z',
              type: 'IN',
              processId: 1002,
            },
            quote: {
              command: 'DomainTransfer',
              quote: {
                total: 449,
                currency: 'EUR',
                billables: [
                  {
                    product: 'domain_nl',
                    action: 'TRANSFER',
                    quantity: 1,
                    amount: 449,
                    providerName: 'sidn',
                    refundable: true,
                    total: 449,
                  },
                ],
              },
              plan: {
                periodMonths: 12,
                expiry: { before: '2027-02-14T10:00:00Z', after: '2028-02-14T10:00:00Z' },
                nameServers: {
                  change: 'kept',
                  before: ['ns1.previous-host.example', 'ns2.previous-host.example'],
                  after: ['ns1.previous-host.example', 'ns2.previous-host.example'],
                },
                dnssec: { change: 'kept', before: [], after: [] },
                zone: { change: 'untouched', exists: false },
                contacts: { registrant: 'demo-registrant', contacts: [] },
                privacyProtect: false,
                autoRenew: true,
                designatedAgent: { requested: 'NONE', applied: 'NONE' },
              },
            },
          },
        },
      },
    },
    '202': {
      description: 'Pending (at the registry, or waiting for a contact); `actionDate` says when the status expires.',
      headers: [{ name: 'x-process-id', required: true }, { name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: TransferResult,
          examples: {
            pending: {
              domainName: 'transfer-wait.com',
              status: 'pending',
              requestedDate,
              actionDate: '2026-11-26T21:03:29Z',
              type: 'IN',
              processId: 1001,
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
    'ObjectExists',
    'ObjectStatusProhibitsOperation',
    'BillableAcknowledgmentNeededException',
  ],
  requestHeaders: [
    {
      name: 'Idempotency-Key',
      description: 'Makes a retry safe: the same key and body within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
      example: 'b3c1f0a2-7d4e-4c59-9d0e-3f6a1e2b4c5d',
    },
  ],
  examples: {
    path: { domainName: 'transfer-now.nl' },
    body: {
      completesAtOnce: {
        summary: 'transfer-now.nl: the registry completes it at once (200)',
        value: { customer: 'demo', registrant: 'demo-registrant', authcode: 'NL-TRANSFER-2026' },
      },
      pending: {
        summary: 'transfer-wait.com (path domainName transfer-wait.com): pending for five days (202)',
        value: {
          customer: 'demo',
          registrant: 'demo-registrant',
          authcode: 'COM-TRANSFER-2026',
          period: 12,
          ns: ['ns1.registrar-sandbox.example', 'ns2.registrar-sandbox.example'],
          contacts: [{ role: 'ADMIN', handle: 'demo-admin' }],
          zone: { service: 'BASIC', template: 'demo-template' },
        },
      },
      premium: {
        summary: 'transfer-premium.com: a premium name, its price acknowledged',
        value: {
          customer: 'demo',
          registrant: 'demo-registrant',
          authcode: 'COM-TRANSFER-2026',
          billables: [{ product: 'domain_com', action: 'TRANSFER', quantity: 1 }],
        },
      },
    },
  },
  components: { TransferResult, TransferQuote, TransferPlan, ZonePlan, Quote },
};
