import { RegistryDomainRecord } from '../../model/registry-domain.ts';
import { getItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';

/** The sandbox registry's own domains (shared/registry/sandbox.ts): one item per name, read by name. */

const entity = 'registryDomain';

/** Stores a sandbox registry domain (datasets, tests). With `ifAbsent`, an existing one is kept (false). */
export function putRegistryDomain(record: RegistryDomainRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.registryDomain(record.domainName), entity, record), ifAbsent);
}

/** A sandbox registry domain by name (one GetItem). */
export function getRegistryDomain(domainName: string): Promise<RegistryDomainRecord | undefined> {
  return getItem(keys.registryDomain(domainName), RegistryDomainRecord, entity);
}
