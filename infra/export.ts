import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db } from '../shared/db/client.ts';
import { parseItem } from '../shared/db/items.ts';
import { keys } from '../shared/db/keys.ts';
import { assembleZone, parseZoneHead, zoneEntity, zoneRecordEntity } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import { ApiKeyRecord } from '../shared/model/api-key.ts';
import { CertificateAuthority, CertificateProduct, CertificateRecord } from '../shared/model/certificate.ts';
import { ContactRecord } from '../shared/model/contact.ts';
import { CustomerRecord } from '../shared/model/customer.ts';
import { DomainRecord } from '../shared/model/domain.ts';
import { PriceRecord, PromoRecord } from '../shared/model/price.ts';
import { ProcessRecord } from '../shared/model/process.ts';
import { ProviderRecord } from '../shared/model/provider.ts';
import { RateRecord } from '../shared/model/rate.ts';
import { RegistrationLock } from '../shared/model/registration.ts';
import { RegistryDomainRecord, RegistryTransferRecord } from '../shared/model/registry-domain.ts';
import { TransferLock } from '../shared/model/transfer.ts';
import { TemplateRecord, ZoneRecord } from '../shared/model/zone.ts';
import { type Dataset, parseDataset } from './dataset.ts';

/**
 * The whole table as a dataset (the format of infra/dataset.ts), for `npm run admin -- export`.
 *
 * It reads the table with a paginated, parallel Scan. Request paths never scan (every one of them is
 * a GetItem or a Query of one partition); an operator export is different: it must see every item,
 * including partitions no key can name up front (each process, certificate and domain has its
 * own), and gsi1 holds only the entities that carry a per-customer listing key. One pass over the
 * table, 1 MB a page, is the cheapest read that sees everything.
 *
 * Items the dataset does not carry, on purpose:
 * - derived items, rebuilt on import: the extension index of each registry (`providerExtension`,
 *   written with the provider), the identifier, type and action listings of each process
 *   (`processIdentifier`, `processType`, `processAction`),
 *   the listing entries of each contact (`contact-entry`: one per listed field, written with the contact) and
 *   the open-request marker of each certificate process still validating (`openCertificateRequest`),
 *   both written with the process, and the status listing of each domain (`domainStatus`) and its
 *   entry in the expiry job's listing (`domainDue`), written with the domain, and a PREMIUM zone's
 *   entry in the expiry job's listing of zones (`zoneDue`), written with the zone from its `paidUntil`;
 * - the marks of a PREMIUM zone's charged years (`zonePremiumCharge`): the zone's `paidUntil`,
 *   exported with it, says which years are paid, and a charge moves it on under its value;
 * - short-lived items that expire through the table's TTL: Idempotency-Key records, the single
 *   use of one-time validation-manager links (`oneTimeLinkUse`) and the windows of the domain
 *   check's rate limit (`rateLimit`);
 * - state rebuilt from the rest: the process counts (a load repairs them), the notification counts
 *   (`notificationCounts`: notifications are not exported either), the marks of each customer's
 *   process listing (`processMark`: the count repair and `migrate` make them) and the blocks of each
 *   of its status listings (`processBlock`: process writes, the count repair and `migrate`), each customer's count
 *   of contacts (`contact-count`: a load counts the contacts it writes), each customer's count of domains
 *   (`domainCounts`: a load counts the domains it writes) and of its domains per expiry day
 *   (`domainExpiryDays`: likewise), the slots of counted
 *   e-mails (`effectSlots`, from the processes' records), the jobs' last runs (`jobRun`: the
 *   next run of each writes its own), the count repair's progress through the customers
 *   (`jobState`: where its pass stopped, with the shard versions it read in this table; a new
 *   table's first pass starts again from the first customer, and the load counts exactly), where
 *   each zone stands with the DNS provider (`zoneDns`: the sync and the reconcile job push the
 *   zones again), a transfer's intent in flight to an upstream account (`transferIntent`, settled
 *   by the poller within minutes), a registration's intent in flight to the registry
 *   (`registrationIntent`, likewise);
 * - the installation's own ACME account (`acmeAccount`: its key belongs to the deployment, not
 *   to a dataset moved between deployments), and the sandbox authority's CA (`sandboxCa`: its
 *   key belongs to the table; a certificate it signed keeps its chain in its own record, so it
 *   still verifies where the dataset is loaded, and the new table makes a CA of its own);
 * - notifications and webhooks (`notification`, `webhook`, `webhookDelivery`,
 *   `webhookDeadLetter`): this build's dataset has no sections for them yet, and a webhook holds
 *   its signing secret; a new deployment starts with empty queues and customers register again.
 * Any other item is an error: an export never silently drops data.
 */

/** Entities whose items the dataset rebuilds or deliberately leaves out (see above). */
export const notExported = new Set([
  'providerExtension',
  'processIdentifier',
  'processType',
  'processAction',
  'processMark',
  'processBlock',
  'contact-entry',
  'openCertificateRequest',
  'domainStatus',
  'domainDue',
  // A PREMIUM zone's entry in the expiry job's listing (from its header's paidUntil, put again by the load),
  // and the marks of its charged years (the header's paidUntil, exported with the zone, says which are paid).
  'zoneDue',
  'zonePremiumCharge',
  'oneTimeLinkUse',
  'rateLimit',
  'processCounts',
  'notificationCounts',
  'contact-count',
  'domainCounts',
  'domainExpiryDays',
  'effectSlots',
  'zoneDns',
  'transferIntent',
  'registrationIntent',
  'acmeAccount',
  'sandboxCa',
  'jobRun',
  'jobState',
  'notification',
  'webhook',
  'webhookDelivery',
  'webhookDeadLetter',
  // Derived from the prices and promos (rebuilt by the load: shared/pricing/price-list-snapshot.ts).
  'priceSnapshot',
  'priceSnapshotPart',
]);

type Section = Exclude<keyof Dataset, 'counters'>;

type Row = Record<string, unknown>;

/** A section's sort key: the named fields joined (ids zero-padded, so they sort as numbers). */
const by =
  (...fields: string[]) =>
  (r: Row): string =>
    fields.map((f) => (typeof r[f] === 'number' ? String(r[f]).padStart(15, '0') : String(r[f]))).join('\u0000');

/** Per entity: the dataset section, the record schema, and the sort key of the section. */
const entities: Record<string, { section: Section; schema: v.GenericSchema; order: (r: Row) => string }> = {
  customer: { section: 'customers', schema: CustomerRecord, order: by('handle') },
  apiKey: { section: 'apiKeys', schema: ApiKeyRecord, order: by('customer', 'user', 'keyHash') },
  contact: { section: 'contacts', schema: ContactRecord, order: by('customer', 'handle') },
  provider: { section: 'providers', schema: ProviderRecord, order: by('kind', 'name') },
  price: { section: 'prices', schema: PriceRecord, order: by('customer', 'product', 'action', 'fromDate') },
  promo: { section: 'promos', schema: PromoRecord, order: by('customer', 'product', 'action', 'fromDate') },
  rate: { section: 'rates', schema: RateRecord, order: by('base', 'date') },
  template: { section: 'templates', schema: TemplateRecord, order: by('customer', 'name') },
  domain: { section: 'domains', schema: DomainRecord, order: by('domainName') },
  // Assembled from the header and its record items (zoneRecords below), then checked as a ZoneRecord.
  zone: { section: 'zones', schema: ZoneRecord, order: by('domainName') },
  registryDomain: { section: 'registryDomains', schema: RegistryDomainRecord, order: by('domainName') },
  registryTransfer: { section: 'registryTransfers', schema: RegistryTransferRecord, order: by('domainName', 'requestedDate') },
  certificateAuthority: { section: 'certificateAuthorities', schema: CertificateAuthority, order: by('name') },
  certificateProduct: { section: 'certificateProducts', schema: CertificateProduct, order: by('product') },
  certificate: { section: 'certificates', schema: CertificateRecord, order: by('id') },
  process: { section: 'processes', schema: ProcessRecord, order: by('id') },
  domainTransfer: { section: 'transferLocks', schema: TransferLock, order: by('domainName') },
  // A registration the registry keeps pending: without it the loaded process would never be settled.
  domainRegistration: { section: 'registrationLocks', schema: RegistrationLock, order: by('domainName') },
};

const Counter = v.object({ value: v.pipe(v.number(), v.integer(), v.minValue(0)) });

/** Every item of the table: a paginated Scan in `segments` parallel segments (consistent reads). */
export async function scanTable(segments = 4): Promise<Record<string, unknown>[]> {
  const parts = await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      const items: Record<string, unknown>[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const out = await db().send(
          new ScanCommand({
            TableName: tableName(),
            Segment: segment,
            TotalSegments: segments,
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        items.push(...(out.Items ?? []));
        start = out.LastEvaluatedKey;
      } while (start);
      return items;
    }),
  );
  return parts.flat();
}

/** Whether an item is an Idempotency-Key record, by its key (records written before they carried an entity tag included). */
function isIdempotencyRecord(item: Record<string, unknown>): boolean {
  return typeof item.pk === 'string' && item.pk.startsWith(keys.idempotency('').pk);
}

/** The counter name of a counter item, checked against the key it must have. */
function counterName(item: Record<string, unknown>): string {
  const prefix = keys.counter('').pk;
  const name = String(item.pk).slice(prefix.length);
  if (!String(item.pk).startsWith(prefix) || keys.counter(name).pk !== item.pk)
    throw new Error(`Counter item with unexpected key ${String(item.pk)}`);
  return name;
}

/**
 * Zones from their headers and record items (the records of each header's generation, in order;
 * items of a generation no header names are a stopped write's leftovers and are left out). A zone
 * whose records do not match its header changed during the export, which then fails: run it again.
 */
function exportedZones(heads: Row[], records: Row[]): Row[] {
  const byPartition = new Map<string, Row[]>();
  for (const item of records) byPartition.set(String(item.pk), [...(byPartition.get(String(item.pk)) ?? []), item]);
  return heads.map((item) => {
    const items = (byPartition.get(String(item.pk)) ?? []).sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1));
    const zone = assembleZone(parseZoneHead(item), items);
    if (!zone) throw new Error(`The zone ${String(item.pk)} changed during the export; run it again`);
    return zone as Row;
  });
}

/** The whole table as a dataset: every section sorted, API keys as hashes, counters as floors. */
export async function exportDataset(): Promise<Dataset> {
  const sections: Partial<Record<Section, Row[]>> = {};
  const counters: Record<string, number> = {};
  const zoneHeads: Row[] = [];
  const zoneRecords: Row[] = [];
  for (const item of await scanTable()) {
    const entity = String(item.entity);
    if (notExported.has(entity) || isIdempotencyRecord(item)) continue;
    if (entity === zoneEntity || entity === zoneRecordEntity) {
      (entity === zoneEntity ? zoneHeads : zoneRecords).push(item);
      continue;
    }
    if (entity === 'counter') {
      counters[counterName(item)] = v.parse(Counter, item).value;
      continue;
    }
    const known = entities[entity];
    if (!known) throw new Error(`Item ${String(item.pk)}/${String(item.sk)} has entity '${entity}', which the export does not know`);
    const list = sections[known.section] ?? [];
    list.push(parseItem(known.schema, entity, item) as Row);
    sections[known.section] = list;
  }
  if (zoneHeads.length > 0) sections.zones = exportedZones(zoneHeads, zoneRecords);
  const out: Record<string, unknown> = {};
  for (const { section, order } of Object.values(entities)) {
    const list = sections[section];
    if (list) out[section] = [...list].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  }
  if (Object.keys(counters).length > 0) out.counters = Object.fromEntries(Object.entries(counters).sort(([a], [b]) => (a < b ? -1 : 1)));
  // What we write must load again: the dataset schema is the contract of the file.
  return parseDataset(out);
}
