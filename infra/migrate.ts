import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../shared/db/client.ts';
import { parseItem, toItem } from '../shared/db/items.ts';
import { keys } from '../shared/db/keys.ts';
import { putContact, setContactCount } from '../shared/db/repositories/contacts.ts';
import { putCustomer } from '../shared/db/repositories/customers.ts';
import {
  expiryDayCounterOf,
  expiryDaysEntity,
  isOldDomainItem,
  lacksDueEntry,
  placeDueEntry,
  repairExpiryDayCounts,
  rewriteDomain,
} from '../shared/db/repositories/domains.ts';
import { notificationCountsEntity } from '../shared/db/repositories/notification-counts.ts';
import { notificationEntity, setNotificationExpiry } from '../shared/db/repositories/notifications.ts';
import {
  listProcessByType,
  markProcessPositions,
  processTypeItems,
  rebuildProcessBlocks,
  storeDetailStatus,
} from '../shared/db/repositories/processes.ts';
import { putProvider } from '../shared/db/repositories/providers.ts';
import { replaceWebhookSecrets, webhookEntity } from '../shared/db/repositories/webhooks.ts';
import { isUnplaced, placeOwnedItem } from '../shared/db/repositories/zone-placement.ts';
import { placeZoneDue, placeZonePaidUntil, zoneDueEntity } from '../shared/db/repositories/zone-premium.ts';
import { indexZoneId, putZone } from '../shared/db/repositories/zone-writes.ts';
import { assembleZone, parseZoneHead, zoneEntity } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import { ContactRecord } from '../shared/model/contact.ts';
import { CustomerRecord } from '../shared/model/customer.ts';
import { DomainRecord } from '../shared/model/domain.ts';
import { NotificationRecord } from '../shared/model/notification.ts';
import { PriceSnapshotHead } from '../shared/model/price-snapshot.ts';
import { ProcessRecord } from '../shared/model/process.ts';
import { ProviderRecord } from '../shared/model/provider.ts';
import { WebhookRecord } from '../shared/model/webhook.ts';
import { firstUnpaidAnniversary } from '../shared/model/zone.ts';
import { repairNotificationCounts } from '../shared/notifications/repair-counts.ts';
import { openSecret, sealSecret } from '../shared/notifications/secret-box.ts';
import { refreshPriceSnapshot } from '../shared/pricing/price-list-snapshot.ts';
import { forEachLimited } from './dataset.ts';
import { scanTable } from './export.ts';

/**
 * `npm run admin -- migrate`: brings a table written by an earlier version to the current layout.
 * Idempotent: a second run finds nothing to do. Safe while the service runs (every step is a
 * write the service itself makes, and the read path takes both layouts meanwhile).
 *
 * - Zones stored with their records inline in one item (bounded by DynamoDB's 400 KB item size)
 *   are rewritten as a header item and one item per record, through the same write as any zone
 *   (shared/db/repositories/zone-writes.ts): the new records first, then the header switched to
 *   them in one conditional write, which fails if the zone changed meanwhile (it is then written
 *   again from the zone as it now is).
 * - Prices and promos keyed `PRICE#<product>#...` / `PROMO#<product>#...` get the keys that start
 *   with the product (`PRODUCT#<product>#PRICE#...`), so that a transfer or renewal reads only its
 *   product's entries: each moved in one transaction (the new item put, the old one deleted only
 *   if unchanged). A price-list read during the migration may list a moving entry twice.
 * - Providers written before they were listed per kind (gsi1) are written again as they are, now
 *   with their listing keys (with their extension index, as the dataset loader writes them).
 * - Customers written before they were listed (gsi1 `CUSTOMERS`, which the scheduled count repair
 *   goes through) are written again as they are, now with their listing keys.
 * - Processes written before their items stored their detail status (`detailStatus`, which the
 *   listing's summaries in gsi1list read) get it, derived from their details, unless they changed
 *   meanwhile (their writer then stored it). Until then the listing reads such a process whole.
 * - A customer's items of a domain name's collection (the domain, the zone's header and records,
 *   its DNS standing) written before they had their places in that customer's partitions of the
 *   name (gsi3) and of the zone's id (gsi2), where the zone GETs read the caller's zone in one
 *   Query, get them, unless they changed hands meanwhile (their writer then set them). Until then
 *   the zone GETs read such a zone from the table, as before (two to four calls).
 * - Processes written before their listings by type and by action (one small item each, which an
 *   exact `type` or `action` filter reads) get them, put where absent. Until then such a filter
 *   lists only the processes written since: run the migration right after deploying.
 * - Each customer's process listing gets its marks (the id of the process at every 100th position),
 *   from its last mark on, so that a deep offset of the default order counts at most about 100
 *   keys; the scheduled count repair keeps them (shared/processes/repair-counts.ts).
 * - Domains written before the domain API (statuses in EPP spelling, `ok`; no `autoRenewPeriod`
 *   or `premium`; not listed by expiry or status) are written again as they now read: statuses
 *   upper case (`OK`), the defaults (12 months, not premium), their expiry listing (gsi2) and one
 *   status listing item per status, unless they changed meanwhile (their writer wrote them so).
 * - Domains stored before the expiry job's listing (keys.domainDue: the job reads only the domains
 *   due there) get their entry at their due time, unless they changed meanwhile (their writer put
 *   it). Until then the job never acts on them: no notice, no renewal, no expiry.
 * - PREMIUM zones stored before their later years were charged (no `paidUntil`) get one: the first
 *   anniversary of their creation still ahead (the years before were never billed, so none is
 *   charged after the fact), with their entry in the expiry job's listing of zones (keys.zoneDue);
 *   a PREMIUM zone with a `paidUntil` but no entry at it gets its entry. Unless they changed
 *   meanwhile (their writer put them).
 * - Each customer's counts of domains per expiry day (which the `total` of an expiryDate range
 *   sums) are rebuilt from the expiry index where they do not match the domains the scan found
 *   (domains written before the counts, or drift): after the domains above are rewritten.
 * - Contacts written before the address book (without `brand`, or not listed in gsi1/gsi2) are
 *   written again with `brand` (`default`) and their listing keys, and each customer's count of
 *   contacts (which the limit and the listing's `total` read) is set to the contacts it has.
 * - Webhook signing secrets stored in the clear are sealed (envelope encryption:
 *   shared/notifications/secret-box.ts), unless the endpoint changed meanwhile (its writer sealed them).
 * - Notifications written before retention get their `expiresAt` (shared/model/notification.ts),
 *   and each customer whose notification counts do not match its notifications has them repaired.
 * - Price lists without a current snapshot (written before snapshots, or by a bulk write that did
 *   not raise their version), and those whose entries were moved above, get their snapshot
 *   rebuilt (shared/pricing/price-list-snapshot.ts), so their first request reads a few items.
 */

/** What a migration found and did. */
export interface MigrationReport {
  zonesInline: number;
  zonesMigrated: number;
  pricesOldKeys: number;
  pricesMigrated: number;
  /** Providers written before they were listed per kind in gsi1 (GET /v2/providers lists them once migrated). */
  providersUnlisted?: number;
  providersListed?: number;
  /** Customers written before they were listed in gsi1 (the count repair job visits them once migrated). */
  customersUnlisted?: number;
  customersListed?: number;
  /** Processes written before their items stored their detail status (the listing reads them whole until migrated). */
  processesWithoutDetail?: number;
  processesDetailed?: number;
  /** Zone headers written before zones were found by id (`/v2/dns/zones/{id}` finds them once migrated). */
  zonesUnindexed?: number;
  zonesIndexed?: number;
  /**
   * A customer's items of a domain name's collection (domain, zone header, records, DNS standing)
   * without their places by name (gsi3) and by zone id (gsi2), and those given them.
   */
  ownedItemsUnplaced?: number;
  ownedItemsPlaced?: number;
  /** Processes written before their listings by type and by action (an exact type or action filter lists them once migrated). */
  processesUnlistedByType?: number;
  processesListedByType?: number;
  /** Marks added to the customers' process listings (a deep offset starts from the nearest; the scheduled count repair keeps them). */
  processMarksAdded?: number;
  /** Status listings whose blocks (deep offsets of a status) were built afresh. */
  processBlocksBuilt?: number;
  /** Domains in the layout before the domain API (GET /v2/domains lists them by expiry and status once migrated). */
  domainsOld?: number;
  domainsMigrated?: number;
  /** Domains stored without their entry in the expiry job's listing (the job never saw them), and those given theirs. */
  domainsUndue?: number;
  domainsDueListed?: number;
  /** PREMIUM zones without a paid-until time or its due entry (the expiry job never charged their later years), and those given them. */
  zonesPremiumUndue?: number;
  zonesPremiumDueListed?: number;
  /** Contacts written before the address book's shape (no brand, unlisted), and those rewritten. */
  contactsOldShape?: number;
  contactsMigrated?: number;
  /** Webhook endpoints holding a signing secret stored in the clear, and those whose secrets were sealed. */
  webhooksPlain?: number;
  webhooksSealed?: number;
  /** Notifications written before retention (no `expiresAt`), and those given theirs. */
  notificationsWithoutExpiry?: number;
  notificationsExpiring?: number;
  /** Customers whose notification counts did not match their notifications (repaired). */
  notificationCountsRepaired?: number;
  /** Customers whose per-day expiry counts did not match their domains (rebuilt from the expiry index). */
  domainExpiryDaysRepaired?: number;
  /** Customers whose price list has no current snapshot (or whose entries move), and those whose snapshot was rebuilt. */
  priceListsUnsnapshotted?: number;
  priceListsSnapshotted?: number;
}

/** Whether a price list's snapshot is of the list's current version. */
function currentSnapshot(head: PriceSnapshotHead | undefined): boolean {
  return head?.built !== undefined && head.built.version === head.version;
}

/** A price or promo item under its key of an earlier version. */
function oldPriceKey(item: Record<string, unknown>): boolean {
  return (item.entity === 'price' || item.entity === 'promo') && /^(PRICE|PROMO)#/.test(String(item.sk));
}

/** Moves a price or promo to its current key in one transaction (the old item deleted only if unchanged since read). */
async function movePrice(item: Record<string, unknown>): Promise<void> {
  const { pk, sk, entity, ...record } = item as {
    pk: string;
    sk: string;
    entity: string;
    customer: string;
    product: string;
    action: string;
    fromDate: string;
  };
  const key = (entity === 'price' ? keys.price : keys.promo)(record.customer, record.product, record.action, record.fromDate);
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: tableName(), Item: toItem(key, entity, record) } },
        { Delete: { TableName: tableName(), Key: { pk, sk }, ConditionExpression: 'attribute_exists(pk)' } },
      ],
    }),
  );
}

/** Finds what is in an earlier layout (a Scan: an operator command, not a request path) and migrates it, or with `dryRun` only counts it. */
export async function migrateTable(options: { dryRun?: boolean; onZone?: (domainName: string, records: number) => void } = {}) {
  const items = await scanTable();
  const legacy = items.filter((item) => item.entity === zoneEntity && item.generation === undefined);
  const prices = items.filter(oldPriceKey);
  const unlisted = items.filter((item) => item.entity === 'provider' && item.gsi1pk === undefined);
  const customers = items.filter((item) => item.entity === 'customer' && item.gsi1pk === undefined);
  const undetailed = items.filter((item) => item.entity === 'process' && item.detailStatus === undefined);
  // Inline zones get their id entry when they are rewritten below.
  const unindexed = items.filter((item) => item.entity === zoneEntity && item.generation !== undefined && item.gsi2pk === undefined);
  const oldDomains = items.filter(isOldDomainItem);
  // Domains stored before the expiry job's listing (no due entry, or one not at their due time); old ones get theirs rewritten.
  const dueEntries = new Map(
    items.filter((item) => item.entity === 'domainDue').map((item) => [String(item.domainName), String(item.dueDate)] as const),
  );
  const undue = items
    .filter((item) => item.entity === 'domain' && !isOldDomainItem(item))
    .map((item) => parseItem(DomainRecord, 'domain', item))
    .filter((record) => lacksDueEntry(record, dueEntries));
  // PREMIUM zones without their paid-until time, or without their entry at it in the job's listing of zones.
  const zoneDue = new Map(
    items.filter((item) => item.entity === zoneDueEntity).map((item) => [String(item.domainName), String(item.dueDate)] as const),
  );
  const premiumUndue = items
    .filter((item) => item.entity === zoneEntity && item.generation !== undefined && item.service === 'PREMIUM')
    .map(parseZoneHead)
    .filter((head) => head.zone.paidUntil === undefined || zoneDue.get(head.zone.domainName) !== head.zone.paidUntil);
  const keyOf = (item: Record<string, unknown>) => `${String(item.pk)}|${String(item.sk)}`;
  const present = new Set(items.map(keyOf));
  const unlistedByType = items.filter(
    (item) =>
      item.entity === 'process' &&
      processTypeItems(parseItem(ProcessRecord, 'process', item)).some((listing) => !present.has(keyOf(listing))),
  );
  // The zone's id of each name's collection, from its header (the records and DNS standing are placed by it).
  const zoneIds = new Map(items.filter((item) => item.entity === zoneEntity).map((item) => [String(item.pk), Number(item.id)]));
  const unplaced = items.filter(
    (item) =>
      !isOldDomainItem(item) &&
      !(item.entity === zoneEntity && item.generation === undefined) &&
      isUnplaced(item, zoneIds.get(String(item.pk))),
  );
  const contacts = items.filter((item) => item.entity === 'contact');
  // Contacts written before their listing entries existed (every contact has one for its e-mail) are rewritten with them.
  const listed = new Set(
    items
      .filter((item) => item.entity === 'contact-entry' && String(item.pk).includes('#email='))
      .map((item) => `${String(item.pk).slice(0, String(item.pk).indexOf('#email='))}\n${String(item.handle)}`),
  );
  const oldContacts = contacts.filter(
    (item) =>
      item.brand === undefined ||
      item.gsi1pk === undefined ||
      item.gsi2pk === undefined ||
      !listed.has(`CONTACT#${String(item.customer)}\n${String(item.handle)}`),
  );
  const counted = new Map<string, number>();
  for (const item of contacts) counted.set(String(item.customer), (counted.get(String(item.customer)) ?? 0) + 1);
  const countItems = new Map(items.filter((item) => item.entity === 'contact-count').map((item) => [String(item.pk), Number(item.count)]));
  const miscounted = [...counted].filter(([customer, n]) => countItems.get(`CONTACT#${customer}`) !== n);
  const plainWebhooks = items.filter(
    (item) => item.entity === webhookEntity && (item.secrets as { secret?: string }[] | undefined)?.some((s) => s.secret !== undefined),
  );
  const notifications = items.filter((item) => item.entity === notificationEntity);
  const unexpiring = notifications.filter((item) => item.expiresAt === undefined);
  // Each customer's notifications as the scan found them, against its count shards.
  const notified = new Map<string, number>();
  for (const item of notifications) notified.set(String(item.customer), (notified.get(String(item.customer)) ?? 0) + 1);
  const notificationCounts = new Map<string, number>();
  for (const item of items.filter((i) => i.entity === notificationCountsEntity)) {
    const customer = String(item.pk)
      .slice('NOTIFICATIONS#'.length)
      .replace(/#COUNTS#\d+$/, '');
    notificationCounts.set(customer, (notificationCounts.get(customer) ?? 0) + Number(item.all ?? 0));
  }
  const notificationsMiscounted = [...new Set([...notified.keys(), ...notificationCounts.keys()])].filter(
    (customer) => (notified.get(customer) ?? 0) !== (notificationCounts.get(customer) ?? 0),
  );
  // Each customer's domains per expiry day counter, as the scan found them, against its counters.
  const expiring = new Map<string, Map<string, number>>();
  const tally = (customer: string, at: string, n: number) => {
    const days = expiring.get(customer) ?? new Map<string, number>();
    days.set(at, (days.get(at) ?? 0) + n);
    expiring.set(customer, days);
  };
  for (const item of items.filter((i) => i.entity === 'domain')) {
    tally(String(item.customer), expiryDayCounterOf({ domainName: String(item.domainName), expiryDate: String(item.expiryDate) }), 1);
  }
  for (const item of items.filter((i) => i.entity === expiryDaysEntity)) {
    tally(
      String(item.pk)
        .slice('DOMAINSTATUS#'.length)
        .replace(/#EXPIRYDAYS$/, ''),
      String(item.sk),
      -Number(item.count ?? 0),
    );
  }
  const expiryDaysMiscounted = [...expiring].filter(([, days]) => [...days.values()].some((n) => n !== 0)).map(([customer]) => customer);
  // Price lists whose snapshot is missing or of another version than the list's, or whose entries move.
  const snapshotHeads = new Map(
    items
      .filter((item) => item.entity === 'priceSnapshot')
      .map((item) => [String(item.customer), parseItem(PriceSnapshotHead, 'priceSnapshot', item)]),
  );
  const unsnapshotted = [
    ...new Set(
      items
        .filter(
          (item) =>
            (item.entity === 'price' || item.entity === 'promo') &&
            (oldPriceKey(item) || !currentSnapshot(snapshotHeads.get(String(item.customer)))),
        )
        .map((item) => String(item.customer)),
    ),
  ];
  const report: MigrationReport = {
    zonesInline: legacy.length,
    zonesMigrated: 0,
    pricesOldKeys: prices.length,
    pricesMigrated: 0,
    providersUnlisted: unlisted.length,
    providersListed: 0,
    customersUnlisted: customers.length,
    customersListed: 0,
    processesWithoutDetail: undetailed.length,
    processesDetailed: 0,
    zonesUnindexed: unindexed.length,
    zonesIndexed: 0,
    processesUnlistedByType: unlistedByType.length,
    processesListedByType: 0,
    processMarksAdded: 0,
    processBlocksBuilt: 0,
    ownedItemsUnplaced: unplaced.length,
    ownedItemsPlaced: 0,
    domainsOld: oldDomains.length,
    domainsMigrated: 0,
    domainsUndue: undue.length,
    domainsDueListed: 0,
    zonesPremiumUndue: premiumUndue.length,
    zonesPremiumDueListed: 0,
    contactsOldShape: oldContacts.length,
    contactsMigrated: 0,
    webhooksPlain: plainWebhooks.length,
    webhooksSealed: 0,
    notificationsWithoutExpiry: unexpiring.length,
    notificationsExpiring: 0,
    notificationCountsRepaired: notificationsMiscounted.length,
    domainExpiryDaysRepaired: expiryDaysMiscounted.length,
    priceListsUnsnapshotted: unsnapshotted.length,
    priceListsSnapshotted: 0,
  };
  if (options.dryRun) return report;
  for (const item of unlisted) {
    await putProvider(parseItem(ProviderRecord, 'provider', item));
    report.providersListed = (report.providersListed ?? 0) + 1;
  }
  for (const item of customers) {
    await putCustomer(parseItem(CustomerRecord, 'customer', item));
    report.customersListed = (report.customersListed ?? 0) + 1;
  }
  await forEachLimited(undetailed, 8, async (item) => {
    if (await storeDetailStatus(parseItem(ProcessRecord, 'process', item))) report.processesDetailed = (report.processesDetailed ?? 0) + 1;
  });
  await forEachLimited(unlistedByType, 8, async (item) => {
    if (await listProcessByType(parseItem(ProcessRecord, 'process', item))) {
      report.processesListedByType = (report.processesListedByType ?? 0) + 1;
    }
  });
  // After the processes are in place: each customer's listing marked from its last mark on.
  const processCustomers = [...new Set(items.filter((item) => item.entity === 'process').map((item) => String(item.customer)))];
  await forEachLimited(processCustomers, 4, async (customer) => {
    report.processMarksAdded = (report.processMarksAdded ?? 0) + (await markProcessPositions(customer)).marks;
    // Each status listing's blocks, where they do not add up to the status's count (before this version: none).
    report.processBlocksBuilt = (report.processBlocksBuilt ?? 0) + (await rebuildProcessBlocks(customer));
  });
  await forEachLimited(oldDomains, 8, async (item) => {
    if (await rewriteDomain(parseItem(DomainRecord, 'domain', item))) report.domainsMigrated = (report.domainsMigrated ?? 0) + 1;
  });
  await forEachLimited(undue, 8, async (record) => {
    if (await placeDueEntry(record)) report.domainsDueListed = (report.domainsDueListed ?? 0) + 1;
  });
  const migratedAt = new Date();
  await forEachLimited(premiumUndue, 8, async (head) => {
    const placed =
      head.zone.paidUntil === undefined
        ? await placeZonePaidUntil(head, firstUnpaidAnniversary(head.zone.createdDate, migratedAt))
        : await placeZoneDue(head);
    if (placed) report.zonesPremiumDueListed = (report.zonesPremiumDueListed ?? 0) + 1;
  });
  await forEachLimited(oldContacts, 8, async (item) => {
    await putContact(parseItem(ContactRecord, 'contact', item));
    report.contactsMigrated = (report.contactsMigrated ?? 0) + 1;
  });
  // Counted from what the scan found (the rewrites above keep a contact's count as it was).
  for (const [customer, n] of miscounted) await setContactCount(customer, n);
  await forEachLimited(prices, 8, async (item) => {
    await movePrice(item);
    report.pricesMigrated++;
  });
  // After the moves: each list's snapshot built from its entries under their current keys.
  await forEachLimited(unsnapshotted, 4, async (customer) => {
    await refreshPriceSnapshot(customer);
    report.priceListsSnapshotted = (report.priceListsSnapshotted ?? 0) + 1;
  });
  await forEachLimited(unindexed, 8, async (item) => {
    if (await indexZoneId(String(item.domainName), Number(item.id), String(item.customer)))
      report.zonesIndexed = (report.zonesIndexed ?? 0) + 1;
  });
  await forEachLimited(unplaced, 8, async (item) => {
    if (await placeOwnedItem(item, zoneIds.get(String(item.pk)))) report.ownedItemsPlaced = (report.ownedItemsPlaced ?? 0) + 1;
  });
  await forEachLimited(legacy, 4, async (item) => {
    const zone = assembleZone(parseZoneHead(item), []);
    if (!zone) throw new Error(`Cannot read the inline zone ${String(item.pk)}`);
    await putZone(zone);
    report.zonesMigrated++;
    options.onZone?.(zone.domainName, zone.records.length);
  });
  // Webhook secrets stored in the clear are sealed (envelope encryption), unless the endpoint changed meanwhile.
  await forEachLimited(plainWebhooks, 4, async (item) => {
    const webhook = parseItem(WebhookRecord, webhookEntity, item);
    const sealed = await Promise.all(
      webhook.secrets.map(async (s) => (s.sealed === undefined ? sealSecret(webhook.customer, await openSecret(webhook.customer, s)) : s)),
    );
    if (await replaceWebhookSecrets(webhook.customer, sealed, webhook.version, webhook.updatedDate)) {
      report.webhooksSealed = (report.webhooksSealed ?? 0) + 1;
    }
  });
  await forEachLimited(unexpiring, 8, async (item) => {
    if (await setNotificationExpiry(parseItem(NotificationRecord, notificationEntity, item))) {
      report.notificationsExpiring = (report.notificationsExpiring ?? 0) + 1;
    }
  });
  for (const customer of notificationsMiscounted) await repairNotificationCounts(customer);
  // After the domains are rewritten (each in the expiry index): the per-day counts rebuilt from it.
  for (const customer of expiryDaysMiscounted) await repairExpiryDayCounts(customer);
  return report;
}
