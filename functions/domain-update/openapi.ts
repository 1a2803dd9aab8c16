import * as v from 'valibot';
import { DomainView } from '../../shared/domains/domain-view.ts';
import { type OperationDocs, Quote } from '../../shared/http/api-docs.ts';
import { demoSecure } from '../domain/openapi.ts';
import { DomainUpdateRequest } from './schema.ts';

/** The `?quote=true` answer (contract section 4). */
export const UpdateQuote = v.strictObject({ command: v.literal('UpdateDomainCommand'), quote: Quote });

/** POST /v2/domains/{domainName}/update in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DomainUpdateRequest,
  description: [
    "Changes a domain of the caller (the SDKs' `domains.update`). Each field is applied only when sent (`null` is absent): `ns` (a name server under the domain itself must be one of its `childHosts`), `status` (the whole list wanted: only `CLIENT_*` statuses change, the registry's own are kept, `IRTPC_TRANSFER_PROHIBITED` may only be removed; `CLIENT_TRANSFER_PROHIBITED` is the registrar lock), `privacyProtect`, `autoRenew`, `autoRenewPeriod` (months, whole years), `authcode` (`\"\"` has the registry make a new one, as the WHMCS module asks; any other value sets it), `registrant` and `contacts` (contacts of the caller's account), `keyData`, `dsData`, `languageCode`, `zone` (the managed zone: `{service, template, link, master, dnssec}` gives a domain without one a managed zone (the caller's plain zone of the name converted, or a new one from the caller's template), a different `template` or `link` changes the link of the one it has, the zone as read sent back changes nothing; `{}` removes it, from DNS too). A registrant change of a gTLD sets the 60-day transfer lock (`IRTPC_TRANSFER_PROHIBITED`) unless `designatedAgent` is `OLD` or `BOTH` (any value but `NONE` needs the DESIGNATED_AGENT permission).",
    "The registry applies the change at once (the sandbox; the upstream account with `rtr`): 200 with the domain as changed and the completed process in `X-Process-Id` (`GET /v2/processes/{id}`, type `domain`, action `update`), and an `UpdateDomainEvent` notification. While the domain has `CLIENT_UPDATE_PROHIBITED`, an update that does not lift it answers 400 ObjectStatusProhibitsOperation. Charges: `PRIVACY_PROTECT` when privacy is turned on and `REGISTRANT_CHANGE` where the price list has them; `?quote=true` prices the update and changes nothing (a free update quotes `{total: 0}`). Send `Idempotency-Key` to make retries safe. Another customer's domain answers 404 like a missing one.",
  ].join('\n\n'),
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'Applied: the domain as changed (process id in `x-process-id`); or with `?quote=true` the quote.',
      headers: [{ name: 'x-process-id' }, { name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: v.union([DomainView, UpdateQuote]),
          examples: {
            locked: demoSecure,
            quote: {
              command: 'UpdateDomainCommand',
              quote: {
                total: 500,
                currency: 'EUR',
                billables: [
                  {
                    product: 'domain_com',
                    action: 'PRIVACY_PROTECT',
                    quantity: 1,
                    amount: 500,
                    providerName: 'verisign',
                    refundable: true,
                    total: 500,
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
    'AuthorizationError',
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
    path: { domainName: 'demo-secure.com' },
    body: {
      lock: { summary: 'The registrar lock on, as the WHMCS module sends it', value: { status: ['CLIENT_TRANSFER_PROHIBITED'] } },
      nameServers: { summary: 'New name servers', value: { ns: ['ns1.example.net', 'ns2.example.net'] } },
      newAuthcode: { summary: 'A new EPP code', value: { authcode: '' } },
      managedZone: {
        summary: 'A managed zone from a template (the WHMCS module sends {service} alone)',
        value: { zone: { service: 'BASIC', template: 'demo-template' } },
      },
    },
  },
  components: { UpdateQuote },
};
