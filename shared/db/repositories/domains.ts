import * as v from 'valibot';
import { DnssecAlgorithm } from '../../registry/metadata.ts';
import { DomainName, Handle, WireTime } from '../../schemas/primitives.ts';
import { getItem, parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { ZoneRecord, zoneEntity } from './zones.ts';

const entity = 'domain';

/** DNSSEC key data as the registry holds it (spec 2.4). */
export const KeyData = v.object({
  protocol: v.literal(3),
  flags: v.picklist([256, 257]),
  algorithm: DnssecAlgorithm,
  publicKey: v.string(),
});
export type KeyData = v.InferOutput<typeof KeyData>;

export const DomainContact = v.object({ role: v.picklist(['ADMIN', 'BILLING', 'TECH']), handle: Handle });

/** A domain name in a customer's account. */
export const DomainRecord = v.object({
  domainName: DomainName,
  customer: Handle,
  /** The registry (provider name) that runs the extension. */
  registry: v.string(),
  registrant: Handle,
  contacts: v.array(DomainContact),
  ns: v.array(v.string()),
  keyData: v.array(KeyData),
  privacyProtect: v.boolean(),
  autoRenew: v.boolean(),
  /** Registry statuses (`ok`, `clientTransferProhibited`, ...). */
  status: v.array(v.string()),
  createdDate: WireTime,
  updatedDate: WireTime,
  expiryDate: WireTime,
});
export type DomainRecord = v.InferOutput<typeof DomainRecord>;

/** The item a domain is stored as (for use inside a caller's transaction). */
export function domainItem(record: DomainRecord): Record<string, unknown> {
  return toItem(keys.domain(record.domainName, record.customer), entity, record);
}

export function putDomain(record: DomainRecord, ifAbsent = false): Promise<boolean> {
  return putItem(domainItem(record), ifAbsent);
}

/** A domain by name, whoever holds it (callers check the customer). */
export function getDomain(domainName: string): Promise<DomainRecord | undefined> {
  return getItem(keys.domainByName(domainName), DomainRecord, entity);
}

/** A domain of this customer; another customer's reads as absent (contract section 1). */
export async function getDomainOf(customer: string, domainName: string): Promise<DomainRecord | undefined> {
  const domain = await getDomain(domainName);
  return domain?.customer === customer ? domain : undefined;
}

export async function listDomains(customer: string): Promise<DomainRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.domainsOfCustomer(customer).gsi1pk },
  });
  return items.map((item) => parseItem(DomainRecord, entity, item));
}

/**
 * A domain name's item collection in one Query: the domain (if some account holds it) and its
 * zone (if the service has one). Callers check the customer of each.
 */
export async function getDomainAndZone(domainName: string): Promise<{ domain?: DomainRecord; zone?: ZoneRecord }> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.domainCollection(domainName).pk },
  });
  const out: { domain?: DomainRecord; zone?: ZoneRecord } = {};
  for (const item of items) {
    if (item.entity === entity) out.domain = parseItem(DomainRecord, entity, item);
    else if (item.entity === zoneEntity) out.zone = parseItem(ZoneRecord, zoneEntity, item);
  }
  return out;
}
