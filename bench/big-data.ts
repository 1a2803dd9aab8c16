import { batchWriteAll } from '../shared/db/items.ts';
import { putDomain } from '../shared/db/repositories/domains.ts';
import { raisePriceListVersion } from '../shared/db/repositories/price-snapshots.ts';
import { priceItem } from '../shared/db/repositories/prices.ts';
import { putZone } from '../shared/db/repositories/zone-writes.ts';
import type { DomainRecord } from '../shared/model/domain.ts';
import type { ZoneRecord, ZoneRecordEntry } from '../shared/model/zone.ts';

/**
 * The real sizes of issue 16, built through the repositories in bulk, for the benchmark
 * (bench/run.ts) and the round-trip test: a zone of 10,000 records (Route 53's default limit per
 * zone) and a price list of 60,000 entries.
 */

export const bigZoneName = 'big-zone.example';
export const bigZoneRecords = 10_000;
export const bigListCustomer = 'bench-scale';
export const bigListEntries = 60_000;

/** A registered domain of `customer` with nothing set, for a zone to hang on (the bench and the zone tests). */
export function sampleDomain(domainName: string, customer = 'demo', registry = 'verisign'): DomainRecord {
  return {
    domainName,
    customer,
    registry,
    registrant: 'demo-registrant',
    contacts: [],
    ns: [],
    keyData: [],
    privacyProtect: false,
    autoRenew: true,
    autoRenewPeriod: 12,
    premium: false,
    status: ['OK'],
    createdDate: '2026-01-01T00:00:00Z',
    updatedDate: '2026-01-01T00:00:00Z',
    expiryDate: '2027-01-01T00:00:00Z',
  };
}

/** A managed BASIC zone of `customer` with these records and the demo SOA settings. */
export function sampleZone(domainName: string, records: ZoneRecordEntry[], overrides: Partial<ZoneRecord> = {}): ZoneRecord {
  return {
    id: 90_001,
    domainName,
    customer: 'demo',
    managed: true,
    service: 'BASIC',
    dnssec: false,
    hostMaster: 'hostmaster@demo-hosting.example',
    refresh: 10800,
    retry: 3600,
    expire: 604800,
    ttl: 3600,
    records,
    createdDate: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

/** A domain of `customer` with a zone of 10,000 A and TXT records (hosts with an address and a verification string each). */
export async function writeBigZone(customer = 'demo'): Promise<void> {
  await putDomain(sampleDomain(bigZoneName, customer));
  const records = Array.from({ length: bigZoneRecords }, (_, i) =>
    i % 2 === 0
      ? { name: `host${i}.${bigZoneName}`, type: 'A' as const, content: `198.51.100.${i % 250}`, ttl: 3600 }
      : { name: `host${i - 1}.${bigZoneName}`, type: 'TXT' as const, content: `site-verification=${(i * 7919).toString(36)}`, ttl: 3600 },
  );
  await putZone(sampleZone(bigZoneName, records, { customer }));
}

/**
 * A price list of `entries` entries (60,000 by default) for `customer`: half as many products,
 * REQUEST and RENEW each. A bulk write: it raises the list's version after it, as every writer of
 * prices must, so the list's snapshot is stale until rebuilt (by its next request, or by
 * `refreshPriceSnapshot` as a load does).
 */
export async function writeBigPriceList(customer = bigListCustomer, entries = bigListEntries): Promise<void> {
  await batchWriteAll(
    Array.from({ length: entries }, (_, i) => ({
      put: priceItem({
        customer,
        product: `product_${String(Math.floor(i / 2)).padStart(5, '0')}`,
        action: i % 2 === 0 ? 'REQUEST' : 'RENEW',
        currency: 'EUR',
        price: 1000 + i,
        fromDate: '2026-01-01T00:00:00Z',
      }),
    })),
  );
  await raisePriceListVersion(customer);
}
