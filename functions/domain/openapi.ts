import { DomainSelection, DomainView } from '../../shared/domains/domain-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { DomainRequest } from './schema.ts';

/** The demo domain demo-secure.com as the API shows it (infra/demo-data.json). */
export const demoSecure = {
  domainName: 'demo-secure.com',
  registry: 'verisign',
  customer: 'demo',
  registrant: 'demo-registrant',
  privacyProtect: true,
  status: ['CLIENT_TRANSFER_PROHIBITED'],
  autoRenew: true,
  autoRenewPeriod: 12,
  ns: ['ns1.premium.registrar-sandbox.example', 'ns2.premium.registrar-sandbox.example', 'ns3.premium.registrar-sandbox.example'],
  createdDate: '2024-06-12T09:00:00Z',
  updatedDate: '2026-06-12T09:00:00Z',
  expiryDate: '2027-06-12T09:00:00Z',
  premium: false,
  gateway: false,
  contacts: [
    { role: 'ADMIN', handle: 'demo-admin' },
    { role: 'TECH', handle: 'demo-tech' },
    { role: 'BILLING', handle: 'demo-billing' },
  ],
  keyData: [
    {
      protocol: 3,
      flags: 257,
      algorithm: 13,
      publicKey: 'RC0/0l+nLyCv7xZu9zFztbZ1V+sKoNPLGh1eikgv7PuELQkmCYlp7SKAIjVGqAiaCj1CsH47PaEiCIdnKpeQnQ==',
    },
  ],
};

/** GET /v2/domains/{domainName} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DomainRequest,
  description:
    'A domain of the caller, in the shape the SDKs read (PHP `DomainDetails`, TS `Domain`): statuses upper case (`OK`, `CLIENT_TRANSFER_PROHIBITED`: the registrar lock), `authcode` when the registry holds one (the owner\'s to see; `POST .../update` with `authcode: ""` has a new one made), `zone` when the domain has a managed zone, `PENDING_TRANSFER` while a transfer runs for it. `fields` (repeated or comma-separated) limits the answer to those fields. Another customer\'s domain answers 404 like a missing one.',
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'The domain (only the fields asked for, with `fields`).',
      content: {
        'application/json': {
          json: DomainSelection,
          examples: { 'demo-secure.com': demoSecure, expiry: { domainName: 'demo-secure.com', expiryDate: '2027-06-12T09:00:00Z' } },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { domainName: 'demo-secure.com' } },
  components: { Domain: DomainView },
};
