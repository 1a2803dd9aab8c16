import * as v from 'valibot';
import { DomainContact, DomainZone, DsData, domainStatuses, KeyData } from '../model/domain.ts';
import { WireTime } from '../schemas/primitives.ts';

/**
 * A domain as the API answers it (the SDKs' DomainDetails and Domain models), a page of them, and
 * a check's answer, as schemas: the OpenAPI document and the answer checks use them, the use cases
 * take their types. Kept apart from the use cases, so functions carry none of it.
 */

/** The domain of `GET /v2/domains/{domainName}` and of each entity of the list. */
export const DomainView = v.strictObject({
  domainName: v.string(),
  registry: v.pipe(v.string(), v.description('The registry (provider) that runs the extension.')),
  customer: v.string(),
  registrant: v.pipe(v.string(), v.description("The registrant's contact handle.")),
  privacyProtect: v.boolean(),
  status: v.pipe(
    v.array(v.picklist(domainStatuses)),
    v.description('Registry statuses, upper case (`OK`, `CLIENT_TRANSFER_PROHIBITED`, ...).'),
  ),
  authcode: v.optional(v.pipe(v.string(), v.description('The transfer (EPP) code, when the registry has one for the domain.'))),
  languageCode: v.optional(v.string()),
  autoRenew: v.boolean(),
  autoRenewPeriod: v.pipe(v.number(), v.integer(), v.description('Months an automatic renewal adds.')),
  ns: v.optional(v.array(v.string())),
  childHosts: v.optional(v.array(v.string())),
  createdDate: WireTime,
  updatedDate: v.optional(WireTime),
  expiryDate: WireTime,
  premium: v.boolean(),
  gateway: v.pipe(
    v.boolean(),
    v.description(
      "Whether the domain is held through the customer's own registry account (a gateway account): always false here, every domain is held through the service's own registrar accreditation.",
    ),
  ),
  zone: v.optional(v.pipe(DomainZone, v.description('The managed DNS zone of the domain, if it has one.'))),
  contacts: v.optional(v.array(DomainContact)),
  keyData: v.optional(v.array(KeyData)),
  dsData: v.optional(v.array(DsData)),
});
export type DomainView = v.InferOutput<typeof DomainView>;

/** A field of a domain (what `fields` may name). */
export type DomainField = keyof DomainView;

/** A domain with only the fields `fields` asked for. */
export const DomainSelection = v.pipe(
  v.partial(DomainView),
  v.description('Only the fields named in `fields` (every field when it is not given).'),
);
export type DomainSelection = v.InferOutput<typeof DomainSelection>;

/** One page of the list (the SDKs' Page and Pagination models). */
export const DomainPage = v.strictObject({
  entities: v.array(v.union([DomainView, DomainSelection])),
  pagination: v.strictObject({
    limit: v.pipe(v.number(), v.integer()),
    offset: v.pipe(v.number(), v.integer()),
    total: v.optional(v.pipe(v.number(), v.integer(), v.description('How many domains match; left out with `total=false`.'))),
  }),
});
export type DomainPage = v.InferOutput<typeof DomainPage>;
