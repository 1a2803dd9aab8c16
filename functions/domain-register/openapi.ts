import * as v from 'valibot';
import { RegistrationView } from '../../shared/domains/registration-view.ts';
import { type OperationDocs, Quote } from '../../shared/http/api-docs.ts';
import { DomainRegisterRequest } from './schema.ts';

/** The `?quote=true` answer (contract section 4). */
export const RegisterQuote = v.strictObject({ command: v.literal('CreateDomainCommand'), quote: Quote });

const body = {
  customer: 'demo',
  registrant: 'demo-registrant',
  period: 12,
  autoRenew: false,
  ns: ['ns1.registrar-sandbox.example', 'ns2.registrar-sandbox.example'],
  contacts: [
    { role: 'ADMIN', handle: 'demo-admin' },
    { role: 'TECH', handle: 'demo-tech' },
  ],
};

/** POST /v2/domains/{domainName} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DomainRegisterRequest,
  description: [
    "Registers a free name in the caller's account (the SDKs' `domains.register`). The body is the real API's: `customer` (the caller's own), `registrant` and `contacts` (contacts of the caller's account), `period` (months; default the registry's shortest), `privacyProtect` (default the account's setting), `autoRenew` (default true), `ns`, `keyData`, `zone` (a managed zone served on DNS, as a transfer provisions it), `languageCode`, `launchPhase`, `authcode` (where the registry takes a chosen one), `skipValidation` (accepted; no sandbox registry pre-validates), `billables`. `null` is absent; `?quote=false` is the same as none. The registry's rules come from its metadata: periods, contact roles and counts, the registrant's required properties (SIDN's `legalForm`), name server counts, DNSSEC algorithms and counts, launch phases.",
    "201 with `expiryDate` and `status` when the registry registers the name at once; 202 with the process id in `X-Process-Id` while it is pending: the poller completes it later and a `CreateDomainEvent` notification says so (as it does at once). Charges from the caller's price list: `CREATE` per year (a premium name's on `domain_<extension>_premium`, which must be acknowledged: echo `quote.billables` in `billables`), `PRIVACY_PROTECT` when on and priced; a registration that fails later is refunded. `?quote=true` prices it and changes nothing. Send `Idempotency-Key` to make retries safe. The sandbox registry: any free name registers at once; `register-pending.nl` is pending for two minutes; `register-premium.com` is premium (CREATE 1,200.00); `register-reserved.com` is refused; a name someone holds answers ObjectExists.",
  ].join('\n\n'),
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'With `?quote=true`: the quote.',
      content: {
        'application/json': {
          json: RegisterQuote,
          examples: {
            quote: {
              command: 'CreateDomainCommand',
              quote: {
                total: 1049,
                currency: 'EUR',
                billables: [
                  {
                    product: 'domain_com',
                    action: 'CREATE',
                    quantity: 1,
                    amount: 1049,
                    providerName: 'verisign',
                    refundable: true,
                    total: 1049,
                  },
                ],
              },
            },
            premium: {
              command: 'CreateDomainCommand',
              quote: {
                total: 120000,
                currency: 'EUR',
                billables: [
                  {
                    product: 'domain_com_premium',
                    action: 'CREATE',
                    quantity: 1,
                    amount: 120000,
                    providerName: 'verisign',
                    refundable: true,
                    total: 120000,
                  },
                ],
              },
            },
          },
        },
      },
    },
    '201': {
      description: 'Registered at once: the expiry and statuses (the completed process in `x-process-id`).',
      headers: [{ name: 'x-process-id', required: true }, { name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: RegistrationView,
          examples: { registered: { domainName: 'new-shop-example.com', expiryDate: '2027-11-27T20:00:00Z', status: ['OK'] } },
        },
      },
    },
    '202': {
      description: 'Pending at the registry: the process in `x-process-id`; its notification tells the outcome.',
      headers: [{ name: 'x-process-id', required: true }, { name: 'Idempotent-Replayed' }],
      content: { 'application/json': { json: RegistrationView, examples: { pending: { domainName: 'register-pending.nl' } } } },
    },
  },
  errors: [
    'ConstraintViolationException',
    'ValidationError',
    'ObjectDoesNotExist',
    'ObjectExists',
    'ObjectStatusProhibitsOperation',
    'BillableAcknowledgmentNeededException',
    'AuthorizationError',
  ],
  requestHeaders: [
    {
      name: 'Idempotency-Key',
      description: 'Makes a retry safe: the same key and body within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
      example: 'c4d2e1b3-8e5f-4d6a-9e1f-4a7b2c3d5e6f',
    },
  ],
  examples: {
    path: { domainName: 'new-shop-example.com' },
    query: { quote: 'false' },
    body: {
      atOnce: { summary: 'A free .com: registered at once (201)', value: body },
      pending: {
        summary: 'register-pending.nl (path domainName register-pending.nl): pending, then completed (202)',
        value: { customer: 'demo', registrant: 'demo-registrant', period: 12, contacts: body.contacts, zone: { service: 'BASIC' } },
      },
      premium: {
        summary: 'register-premium.com: the premium CREATE acknowledged',
        value: { ...body, billables: [{ product: 'domain_com_premium', action: 'CREATE', quantity: 1 }] },
      },
    },
  },
  components: { RegistrationView, RegisterQuote, Quote },
};
