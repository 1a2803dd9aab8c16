/**
 * Every partition and sort key of the single table is built here and nowhere else. Each key starts
 * with its entity's prefix, so a query for one entity can never return another's items.
 */

/** The generic key attributes every item carries, plus its entity type. */
export interface ItemKey {
  pk: string;
  sk: string;
  gsi1pk?: string;
  gsi1sk?: string;
  gsi2pk?: string;
  gsi2sk?: string;
  gsi3pk?: string;
}

/**
 * The partition key prefixes of the kinds of item a grant may be limited to (shared/routes.ts
 * `TableUse.only`, IAM `dynamodb:LeadingKeys`): the key builders below use them, so a grant and the
 * keys a function builds cannot drift apart.
 */
export const keyKinds = {
  apiKey: 'APIKEY#',
  provider: 'PROVIDER#',
  extension: 'EXTENSION#',
  priceList: 'PRICELIST#',
  /** A customer's price list as answered, serialized and compressed (shared/pricing/price-list-snapshot.ts). */
  priceSnapshot: 'PRICESNAPSHOT#',
  rates: 'RATES#',
  domain: 'DOMAIN#',
  domainStatus: 'DOMAINSTATUS#',
  process: 'PROCESS#',
  certificateAuthority: 'CA#',
  certificate: 'CERTIFICATE#',
  certificateProduct: 'SSLPRODUCT',
  acmeAccount: 'ACMEACCOUNT#',
  /** The sandbox authority's own CA (its key and certificate), one per table. */
  sandboxCa: 'SANDBOXCA',
  /** The last successful run of each scheduled job (the health route reads them). */
  jobRun: 'JOBRUN',
  processIdentifier: 'PROCESSIDENTIFIER#',
  /** A customer's processes of one type, and of one action: listing items written with each process. */
  processType: 'PROCESSTYPE#',
  processAction: 'PROCESSACTION#',
  /** Marks of a customer's process listing (a position's process id), for deep offsets. */
  processMark: 'PROCESSMARKS#',
  /** Counts of a customer's status listing per range of process ids, for its deep offsets. */
  processBlock: 'PROCESSBLOCKS#',
  notification: 'NOTIFICATIONS#',
  webhook: 'WEBHOOK#',
  rateLimit: 'RATELIMIT#',
  /** A customer's contacts: their partition and their listings (gsi1, gsi2). */
  contact: 'CONTACT#',
} as const;
export type KeyKind = keyof typeof keyKinds;

/** Zero-padded so numeric ids sort in numeric order inside a sort key. */
function pad(id: number): string {
  return String(id).padStart(12, '0');
}

/**
 * The partition of a domain name's item collection: the domain, its zone and its transfer in
 * progress share it, so a name's state is one Query (and a conditional put guards each per name).
 */
function domainPartition(domainName: string): string {
  return `${keyKinds.domain}${domainName}`;
}

/** The key of one item of a domain name's collection. */
function inDomainCollection(domainName: string, sk: 'DOMAIN' | 'ZONE' | 'TRANSFER' | 'REGISTER' | 'DUE') {
  return { pk: domainPartition(domainName), sk };
}

/** Zone records sort after every other item of a domain's collection (`DOMAIN`, `TRANSFER`, `ZONE`). */
const zoneRecordsPrefix = 'ZONE#';

/**
 * An item of a domain name's collection that belongs to a customer, with its place in the name's
 * partition of that customer in gsi3 (`DOMAIN#<name>#OF#<customer>`, sorted by the item's own `sk`):
 * the caller's domain, zone header, records and DNS standing are one Query there, and another
 * customer's items of the name are in another partition, so they cost a read of nothing. The
 * partition starts with the domain kind's prefix, so a grant limited to domains covers it. gsi3 is
 * sparse: only these items have its keys.
 */
function owned<K extends { pk: string; sk: string }>(key: K, domainName: string, customer: string): K & { gsi3pk: string } {
  return { ...key, gsi3pk: `${domainPartition(domainName)}#OF#${customer}` };
}

/** An item's key with its place in a gsi1 listing. */
function listed(key: { pk: string; sk: string }, gsi1pk: string, gsi1sk: string): ItemKey {
  return { ...key, gsi1pk, gsi1sk };
}

export const keys = {
  /** An API key, found by the SHA-256 of the key; listed per customer through gsi1. */
  apiKey: (keyHash: string, customer: string, user: string): ItemKey =>
    listed(keys.apiKeyByHash(keyHash), `APIKEYS#${customer}`, `APIKEY#${user}#${keyHash}`),
  apiKeyByHash: (keyHash: string) => ({ pk: `${keyKinds.apiKey}${keyHash}`, sk: 'APIKEY' }),
  apiKeysOfCustomer: (customer: string) => ({ gsi1pk: `APIKEYS#${customer}` }),

  /**
   * A customer, by handle; listed by handle in one gsi1 partition, so the jobs that visit every
   * customer (the process-count repair) find them by key, never by Scan. Customers are few and
   * written rarely: the partition is never hot.
   */
  customer: (handle: string): ItemKey => listed(keys.customerByHandle(handle), 'CUSTOMERS', `CUSTOMER#${handle}`),
  customerByHandle: (handle: string) => ({ pk: `CUSTOMER#${handle}`, sk: 'CUSTOMER' }),
  /** Every customer, by handle (gsi1; its keys-only twin gsi1keys holds the handles alone). */
  customers: () => ({ gsi1pk: 'CUSTOMERS', gsi1skPrefix: 'CUSTOMER#' }),

  /**
   * Contacts live in their own partition per customer, so a handle lookup is one GetItem. A
   * contact is listed per customer by creation date in gsi1 and by handle in gsi2 (each with its
   * keys-only twin, over which a listing skips and counts), under the same `CONTACT#<customer>`.
   */
  contact: (customer: string, handle: string, createdDate: string): ItemKey => ({
    ...keys.contactByHandle(customer, handle),
    gsi1pk: `CONTACT#${customer}`,
    gsi1sk: `CONTACT#${createdDate}#${handle}`,
    gsi2pk: `CONTACT#${customer}`,
    gsi2sk: `CONTACT#${handle}`,
  }),
  contactByHandle: (customer: string, handle: string) => ({ pk: `CONTACT#${customer}`, sk: `CONTACT#${handle}` }),
  contactsOfCustomer: (customer: string) => ({ pk: `CONTACT#${customer}`, skPrefix: 'CONTACT#', gsi1pk: `CONTACT#${customer}` }),
  /**
   * A contact's entry in the listing of one exact value of a filter field (`organization` without a
   * value: `null`): its partition holds the handles of the customer's contacts with that value, by
   * handle (sk) and by creation date (gsi1, as the contacts themselves).
   */
  contactEntry: (customer: string, field: string, value: string | null, handle: string, createdDate: string): ItemKey => {
    const partition = keys.contactsWith(customer, field, value);
    return { pk: partition, sk: `CONTACT#${handle}`, gsi1pk: partition, gsi1sk: `CONTACT#${createdDate}#${handle}` };
  },
  /** The partition of the contact entries of one value of a field (a customer handle holds no `#`; the field is a name). */
  contactsWith: (customer: string, field: string, value: string | null) =>
    `CONTACT#${customer}#${field}${value === null ? '~null' : `=${value}`}`,
  /** How many contacts a customer has, kept in the transaction of every create and delete (the limit and `total` read it). */
  contactCount: (customer: string): ItemKey => ({ pk: `CONTACT#${customer}`, sk: 'COUNT' }),

  /** Registry (and later certificate authority) metadata, by kind and name; listed per kind through gsi1. */
  provider: (kind: string, name: string): ItemKey =>
    listed({ pk: `${keyKinds.provider}${kind}#${name}`, sk: 'PROVIDER' }, `PROVIDERS#${kind}`, `PROVIDER#${name}`),
  /** Every provider of a kind, by name (gsi1). */
  providersOfKind: (kind: string) => ({ gsi1pk: `PROVIDERS#${kind}` }),
  /** Which registry serves an extension (`co.uk`, `uk`); looked up longest match first. */
  providerExtension: (extension: string): ItemKey => ({ pk: `${keyKinds.extension}${extension}`, sk: 'EXTENSION' }),

  /** Atomic counters (ADD), e.g. the process id sequence. */
  counter: (name: string): ItemKey => ({ pk: `COUNTER#${name}`, sk: 'COUNTER' }),

  /**
   * A process by id; listed per customer in id order through gsi1, and per customer and status in
   * id order through gsi2 (the key moves with the status, so the status index follows every write).
   */
  process: (id: number, customer: string, status: string): ItemKey => ({
    ...listed(keys.processById(id), `PROCESSES#${customer}`, `PROCESS#${pad(id)}`),
    ...keys.processStatusListing(id, customer, status),
  }),
  processById: (id: number) => ({ pk: `${keyKinds.process}${id}`, sk: 'PROCESS' }),
  processesOfCustomer: (customer: string) => ({ gsi1pk: `PROCESSES#${customer}` }),
  /** A process's place in the status index (gsi2): its customer and status, then its id. */
  processStatusListing: (id: number, customer: string, status: string) => ({
    gsi2pk: `PROCESSES#${customer}#STATUS#${status}`,
    gsi2sk: `PROCESS#${pad(id)}`,
  }),
  processesWithStatus: (customer: string, status: string) => ({ gsi2pk: `PROCESSES#${customer}#STATUS#${status}` }),
  /**
   * A process listed under its identifier (a domain name, a certificate's common name): one small
   * item per process in a partition per customer and identifier, written with the process (the
   * identifier never changes), so an exact identifier filter reads only that partition. The
   * customer handle holds no `#`, so the identifier after it cannot be mistaken for another's.
   */
  processIdentifier: (customer: string, identifier: string, id: number): ItemKey => ({
    pk: `${keyKinds.processIdentifier}${customer}#${identifier}`,
    sk: `PROCESS#${pad(id)}`,
  }),
  processesWithIdentifier: (customer: string, identifier: string) => ({ pk: `${keyKinds.processIdentifier}${customer}#${identifier}` }),
  /**
   * A process listed under its type and under its action (`certificate`, `renew`): one small item
   * each, in a partition per customer and value, written with the process (neither ever changes),
   * so an exact type or action filter reads only its own processes, in id order.
   */
  processType: (customer: string, type: string, id: number): ItemKey => ({
    pk: `${keyKinds.processType}${customer}#${type}`,
    sk: `PROCESS#${pad(id)}`,
  }),
  processesOfType: (customer: string, type: string) => ({ pk: `${keyKinds.processType}${customer}#${type}` }),
  processAction: (customer: string, action: string, id: number): ItemKey => ({
    pk: `${keyKinds.processAction}${customer}#${action}`,
    sk: `PROCESS#${pad(id)}`,
  }),
  processesWithAction: (customer: string, action: string) => ({ pk: `${keyKinds.processAction}${customer}#${action}` }),
  /**
   * A mark of a customer's process listing: the id of the process at a position (0-based, in id
   * order) of the customer's processes, every `processMarkSpacing` positions. Processes are never
   * deleted and ids only grow, so a position, once reached, keeps its process: a deep offset starts
   * from the nearest mark instead of counting every key before it.
   */
  processMark: (customer: string, position: number): ItemKey => ({
    pk: `${keyKinds.processMark}${customer}`,
    sk: `MARK#${pad(position)}`,
  }),
  processMarks: (customer: string) => ({ pk: `${keyKinds.processMark}${customer}` }),
  /**
   * A block of a customer's status listing: how many of its processes of that status have ids in
   * one range (`F#`, a fine block of ids; `C#`, a coarse one of many fine blocks), kept by every
   * write that moves a process into or out of the status (shared/db/repositories/process-blocks.ts).
   */
  processBlock: (customer: string, status: string, level: 'C' | 'F', block: number): ItemKey => ({
    pk: `${keyKinds.processBlock}${customer}#${status}`,
    sk: `${level}#${pad(block)}`,
  }),
  processBlocks: (customer: string, status: string) => ({ pk: `${keyKinds.processBlock}${customer}#${status}` }),

  /**
   * A domain in an account, by name (a name is in at most one account); listed per customer by
   * name (gsi1) and by expiry (gsi2: `DOMAINEXP#<customer>`, `<expiryDate>#<name>`), so the
   * listing's expiry ranges read only their own domains. The expiry key moves with every write.
   */
  domain: (domainName: string, customer: string, expiryDate: string): ItemKey => ({
    ...listed(owned(inDomainCollection(domainName, 'DOMAIN'), domainName, customer), `DOMAINS#${customer}`, `DOMAIN#${domainName}`),
    gsi2pk: keys.domainsByExpiry(customer).gsi2pk,
    gsi2sk: `${expiryDate}#${domainName}`,
  }),
  domainByName: (domainName: string) => inDomainCollection(domainName, 'DOMAIN'),
  domainsOfCustomer: (customer: string) => ({ gsi1pk: `DOMAINS#${customer}` }),
  domainsByExpiry: (customer: string) => ({ gsi2pk: `DOMAINEXP#${customer}` }),
  /**
   * A domain listed under one of its statuses: one small item per status in a partition per
   * customer and status, written in the transaction of every write of the domain, so an exact
   * status filter reads only that partition, by name.
   */
  domainStatus: (customer: string, status: string, domainName: string): ItemKey => ({
    pk: `${keyKinds.domainStatus}${customer}#${status}`,
    sk: `DOMAIN#${domainName}`,
  }),
  domainsWithStatus: (customer: string, status: string) => ({ pk: `${keyKinds.domainStatus}${customer}#${status}` }),
  /** A customer's domain counts (every domain, and per status), kept by every write of a domain: the listing's `total`. */
  domainCounts: (customer: string): ItemKey => ({ pk: `${keyKinds.domainStatus}${customer}#COUNTS`, sk: 'COUNTS' }),
  /**
   * A customer's count of domains expiring on one day (`YYYY-MM-DD`, UTC), one of a few shards,
   * kept by every write of a domain: one partition per customer, sorted by day, so the `total` of
   * an expiry range is one Query of its days' counters.
   */
  domainExpiryDay: (customer: string, day: string, shard: number): ItemKey => ({
    pk: `${keyKinds.domainStatus}${customer}#EXPIRYDAYS`,
    sk: `${day}#${shard}`,
  }),
  domainExpiryDays: (customer: string) => ({ pk: `${keyKinds.domainStatus}${customer}#EXPIRYDAYS` }),

  /**
   * The DNS zone of a domain name, in the domain's item collection so the domain and its zone are
   * one Query: the zone's header item (settings, the generation its records belong to), listed
   * per customer, and one item per record (`zoneRecord`), which sort after it.
   */
  zone: (domainName: string, customer: string, id?: number): ItemKey => ({
    ...listed(owned(inDomainCollection(domainName, 'ZONE'), domainName, customer), `ZONES#${customer}`, `ZONE#${domainName}`),
    ...(id === undefined ? {} : keys.zoneById(id, customer)),
  }),
  /**
   * A zone found by its numeric id (`/v2/dns/zones/{id}`): the header carries it on gsi2, so every
   * write of a header (provisioning, loads, the zone API) keeps the mapping without an item of its own.
   */
  zoneById: (id: number, customer: string) => ({ gsi2pk: keys.ownZoneById(id, customer).gsi2pk, gsi2sk: 'ZONE' }),
  /**
   * A customer's zone items by the zone's id in gsi2 (`ZONEID#<id>#OF#<customer>`, each item's sort
   * key again): its header, records and DNS standing, so `/v2/dns/zones/{id}` reads the caller's
   * zone whole in one Query, and another customer's zone of that id is a partition it never reads.
   */
  ownZoneById: (id: number, customer: string) => ({ gsi2pk: `ZONEID#${id}#OF#${customer}` }),
  /** A zone header's id entry as written before it named the owner (`ZONEID#<id>`): read until `npm run admin -- migrate` moves it. */
  zoneByIdBeforeOwner: (id: number) => ({ gsi2pk: `ZONEID#${id}` }),
  zoneByName: (domainName: string) => inDomainCollection(domainName, 'ZONE'),
  /**
   * One record of a zone: `ZONE#<generation>#<position>`. A zone is rewritten under a new
   * generation and switched over in its header, so a reader sees one generation whole
   * (shared/db/repositories/zones.ts). Positions are zero-padded, so records keep their order.
   */
  zoneRecord: (domainName: string, generation: string, position: number): ItemKey => ({
    pk: domainPartition(domainName),
    sk: `${zoneRecordsPrefix}${generation}#${String(position).padStart(7, '0')}`,
  }),
  /**
   * One record of a customer's zone, with its places beside its header: in the customer's partition
   * of the name (gsi3) and of the zone's id (gsi2), where the zone GETs read it.
   */
  ownedZoneRecord: (zone: { domainName: string; customer: string; id: number }, generation: string, position: number): ItemKey => {
    const key = owned(keys.zoneRecord(zone.domainName, generation, position) as { pk: string; sk: string }, zone.domainName, zone.customer);
    return { ...key, gsi2pk: keys.ownZoneById(zone.id, zone.customer).gsi2pk, gsi2sk: key.sk };
  },
  /** A customer's items of a domain name's collection (gsi3): their domain, its zone (header, records) and DNS standing. */
  ownDomainCollection: (domainName: string, customer: string) => ({
    gsi3pk: owned({ pk: '', sk: '' }, domainName, customer).gsi3pk,
  }),
  /** The sort-key prefix of a zone's records: of every generation, or (`generation`) of one. */
  zoneRecords: (domainName: string, generation?: string) => ({
    pk: domainPartition(domainName),
    skPrefix: generation === undefined ? zoneRecordsPrefix : `${zoneRecordsPrefix}${generation}#`,
  }),
  /** The item collection of a domain name: the domain item, its zone (header and records) and its transfer in progress. */
  domainCollection: (domainName: string) => ({ pk: domainPartition(domainName) }),
  zonesOfCustomer: (customer: string) => ({ gsi1pk: `ZONES#${customer}` }),
  /**
   * Where a managed zone stands with the DNS provider (shared/model/zone-dns.ts), in the domain's
   * collection (`DNS` sorts before the domain item, so it is on the first page of a zone read),
   * and listed, every zone the provider serves in one gsi1 partition, for the reconcile job.
   */
  zoneDns: (domainName: string): ItemKey => listed({ pk: domainPartition(domainName), sk: 'DNS' }, 'ZONEDNS', `ZONEDNS#${domainName}`),
  /** The DNS standing's places beside its zone's header, by name (gsi3) and by id (gsi2): read with the zone. */
  ownedZoneDns: (zone: { domainName: string; customer: string; id: number }) => {
    const key = owned({ pk: domainPartition(zone.domainName), sk: 'DNS' }, zone.domainName, zone.customer);
    return { ...key, gsi2pk: keys.ownZoneById(zone.id, zone.customer).gsi2pk, gsi2sk: key.sk };
  },
  zoneDnsByName: (domainName: string) => ({ pk: domainPartition(domainName), sk: 'DNS' }),
  zoneDnsListing: () => ({ gsi1pk: 'ZONEDNS' }),

  /**
   * A domain's transfer in progress (the domain's pending state), in the domain's item collection,
   * so at most one transfer per name can exist (a conditional put). While it waits for the registry
   * it is listed by due time (`actionDate`) in one gsi1 partition for the scheduled poller.
   */
  domainTransfer: (domainName: string, actionDate: string): ItemKey =>
    listed(inDomainCollection(domainName, 'TRANSFER'), 'TRANSFERS#DUE', `TRANSFER#${actionDate}#${domainName}`),
  domainTransferByName: (domainName: string) => inDomainCollection(domainName, 'TRANSFER'),
  /**
   * When the expiry job next acts on a domain (shared/model/domain-lifecycle.ts), in the domain's
   * item collection and listed by that time in one gsi1 partition across customers, so a run reads
   * only the domains that are due (written with every write of the domain: repositories/domains.ts).
   */
  domainDue: (domainName: string, dueDate: string): ItemKey =>
    listed(inDomainCollection(domainName, 'DUE'), 'DOMAINSDUE', `DUE#${dueDate}#${domainName}`),
  domainDueByName: (domainName: string) => inDomainCollection(domainName, 'DUE'),
  /** Domains due at or before a time: gsi1sk <= `DUE#<time>#~`. */
  domainsDue: (at: string) => ({ gsi1pk: 'DOMAINSDUE', gsi1skMax: `DUE#${at}#~`, gsi1skMin: 'DUE#' }),
  /**
   * When a PREMIUM zone's year is next charged (its `paidUntil`: shared/dns/premium-renewal.ts), in
   * the domain name's collection (`PREMIUMDUE` sorts before the zone's records) and listed by that
   * time in one gsi1 partition across customers, so the expiry job reads only the zones that are due.
   */
  zoneDue: (domainName: string, dueDate: string): ItemKey =>
    listed({ pk: domainPartition(domainName), sk: 'PREMIUMDUE' }, 'ZONESDUE', `DUE#${dueDate}#${domainName}`),
  zoneDueByName: (domainName: string) => ({ pk: domainPartition(domainName), sk: 'PREMIUMDUE' }),
  /** PREMIUM zones due at or before a time: gsi1sk <= `DUE#<time>#~`. */
  zonesDue: (at: string) => ({ gsi1pk: 'ZONESDUE', gsi1skMax: `DUE#${at}#~`, gsi1skMin: 'DUE#' }),
  /**
   * The charge of one year of a PREMIUM zone (the year that starts at `periodStart`, its paid-until
   * time before the charge): put only if absent in the transaction of the charge, so a zone's year
   * is charged at most once whatever retries or crashes happen (its id is `<zone id>/<periodStart>`).
   */
  zonePremiumCharge: (zoneId: number, periodStart: string): ItemKey => ({ pk: `ZONECHARGE#${zoneId}`, sk: `YEAR#${periodStart}` }),
  /** Pending transfers due at or before a time: gsi1sk <= `TRANSFER#<time>#~`. */
  transfersDue: (at: string) => ({ gsi1pk: 'TRANSFERS#DUE', gsi1skMax: `TRANSFER#${at}#~`, gsi1skMin: 'TRANSFER#' }),
  /**
   * A domain's registration pending at the registry, in the domain's item collection (at most one
   * per name), listed by due time in one gsi1 partition for the scheduled poller.
   */
  domainRegistration: (domainName: string, actionDate: string): ItemKey =>
    listed(inDomainCollection(domainName, 'REGISTER'), 'REGISTRATIONS#DUE', `REGISTER#${actionDate}#${domainName}`),
  domainRegistrationByName: (domainName: string) => inDomainCollection(domainName, 'REGISTER'),
  /** Pending registrations due at or before a time. */
  registrationsDue: (at: string) => ({ gsi1pk: 'REGISTRATIONS#DUE', gsi1skMax: `REGISTER#${at}#~`, gsi1skMin: 'REGISTER#' }),

  /**
   * A transfer about to be submitted to an upstream registry account (shared/registry/rtr.ts),
   * written before the upstream is asked and listed by request time in one gsi1 partition, so the
   * poller finds the requests that died without an answer; the name's intents share a partition,
   * so a retry finds who asked for the name and when (two customers in the same millisecond apart).
   */
  transferIntent: (domainName: string, requestedDate: string, customer: string): ItemKey =>
    listed(
      { pk: `TRANSFERINTENT#${domainName}`, sk: `INTENT#${requestedDate}#${customer}` },
      'TRANSFERS#INTENTS',
      `INTENT#${requestedDate}#${domainName}`,
    ),
  /** The partition of one name's transfer intents. */
  transferIntentsOf: (domainName: string) => `TRANSFERINTENT#${domainName}`,
  /** Intents requested at or before a time: gsi1sk <= `INTENT#<time>#~`. */
  transferIntentsBefore: (at: string) => ({ gsi1pk: 'TRANSFERS#INTENTS', gsi1skMax: `INTENT#${at}#~`, gsi1skMin: 'INTENT#' }),

  /**
   * A registration about to be submitted to the registry (shared/domains/register.ts), written
   * before the registry is asked and listed by request time in one gsi1 partition, so the poller
   * finds the requests that died without recording their answer; the name's intents share a
   * partition, so the registry gateway finds whose request can explain a registration it holds.
   */
  registrationIntent: (domainName: string, requestedDate: string, customer: string): ItemKey =>
    listed(
      { pk: `REGISTRATIONINTENT#${domainName}`, sk: `INTENT#${requestedDate}#${customer}` },
      'REGISTRATIONS#INTENTS',
      `INTENT#${requestedDate}#${domainName}`,
    ),
  /** The partition of one name's registration intents. */
  registrationIntentsOf: (domainName: string) => `REGISTRATIONINTENT#${domainName}`,
  /** Registration intents requested at or before a time: gsi1sk <= `INTENT#<time>#~`. */
  registrationIntentsBefore: (at: string) => ({ gsi1pk: 'REGISTRATIONS#INTENTS', gsi1skMax: `INTENT#${at}#~`, gsi1skMin: 'INTENT#' }),

  /** A domain as the sandbox registry knows it (shared/registry/sandbox.ts), by name. */
  registryDomain: (domainName: string): ItemKey => ({ pk: `REGISTRYDOMAIN#${domainName}`, sk: 'REGISTRYDOMAIN' }),
  /** What the sandbox registry remembers of one transfer of a name (by request time), beside the name. */
  registryTransfer: (domainName: string, requestedDate: string): ItemKey => ({
    pk: `REGISTRYDOMAIN#${domainName}`,
    sk: `TRANSFER#${requestedDate}`,
  }),

  /** Zone templates of a customer. */
  template: (customer: string, name: string): ItemKey => ({ pk: `TEMPLATE#${customer}`, sk: `TEMPLATE#${name}` }),

  /**
   * A customer's price list: prices (current and scheduled) and promos share one partition, so the
   * whole list is one Query. Sort keys start with the product, so one product's prices and promos
   * are one short Query too (a transfer or renewal reads only its product: docs/performance.md, hot
   * keys), and keep the stable order: product, then action, then date.
   */
  price: (customer: string, product: string, action: string, fromDate: string): ItemKey => ({
    pk: `${keyKinds.priceList}${customer}`,
    sk: `PRODUCT#${product}#PRICE#${action}#${fromDate}`,
  }),
  promo: (customer: string, product: string, action: string, fromDate: string): ItemKey => ({
    pk: `${keyKinds.priceList}${customer}`,
    sk: `PRODUCT#${product}#PROMO#${action}#${fromDate}`,
  }),
  /** The sort-key prefix of one product's prices and promos in a customer's list. */
  productPrices: (customer: string, product: string) => ({ pk: `${keyKinds.priceList}${customer}`, skPrefix: `PRODUCT#${product}#` }),
  priceList: (customer: string) => ({ pk: `${keyKinds.priceList}${customer}` }),
  /**
   * A customer's price list snapshot: its head (the version of the list every price write raises,
   * and the snapshot in force) and the parts of each generation of the snapshot, in one partition
   * read by one Query.
   */
  priceSnapshotHead: (customer: string): ItemKey => ({ pk: `${keyKinds.priceSnapshot}${customer}`, sk: 'HEAD' }),
  priceSnapshotPart: (customer: string, generation: string, part: number): ItemKey => ({
    pk: `${keyKinds.priceSnapshot}${customer}`,
    sk: `PART#${generation}#${String(part).padStart(4, '0')}`,
  }),
  priceSnapshot: (customer: string) => ({ pk: `${keyKinds.priceSnapshot}${customer}` }),

  /**
   * An idempotency record (shared/http/idempotency.ts): one partition per hashed key, so retries of
   * different requests never share a hot partition. `hashedKey` already names operation and caller.
   */
  idempotency: (hashedKey: string): ItemKey => ({ pk: `IDEMPOTENCY#${hashedKey}`, sk: 'IDEMPOTENCY' }),

  /** Daily exchange rates against a base currency (the ECB publishes EUR rates), by date. */
  rate: (base: string, date: string): ItemKey => ({ pk: `${keyKinds.rates}${base}`, sk: `RATE#${date}` }),
  ratesOf: (base: string) => ({ pk: `${keyKinds.rates}${base}` }),

  /** A certificate by id; listed per customer in id order through gsi1. */
  certificate: (id: number, customer: string): ItemKey => ({
    pk: `CERTIFICATE#${id}`,
    sk: 'CERTIFICATE',
    gsi1pk: `CERTIFICATES#${customer}`,
    gsi1sk: `CERTIFICATE#${pad(id)}`,
  }),
  certificateById: (id: number) => ({ pk: `CERTIFICATE#${id}`, sk: 'CERTIFICATE' }),
  certificatesOfCustomer: (customer: string) => ({ gsi1pk: `CERTIFICATES#${customer}` }),

  /** Certificate products (ssl product metadata): one partition, so the catalogue is one Query. */
  certificateProduct: (product: string): ItemKey => ({ pk: keyKinds.certificateProduct, sk: `SSLPRODUCT#${product}` }),
  certificateProducts: () => ({ pk: keyKinds.certificateProduct }),
  /** A certificate authority's configuration (and the sandbox authority's behaviour). */
  certificateAuthority: (name: string): ItemKey => ({ pk: `${keyKinds.certificateAuthority}${name}`, sk: 'CA' }),
  /** The service's ACME account at one directory (id: a digest of the directory URL). */
  acmeAccount: (id: string): ItemKey => ({ pk: `${keyKinds.acmeAccount}${id}`, sk: 'ACCOUNT' }),
  /** The sandbox authority's CA: one per table (shared/certificates/sandbox-ca.ts). */
  sandboxCa: (): ItemKey => ({ pk: keyKinds.sandboxCa, sk: 'CA' }),
  /** A scheduled job's last successful run: one partition, so the health route reads them all in one Query. */
  jobRun: (job: string): ItemKey => ({ pk: keyKinds.jobRun, sk: `JOB#${job}` }),
  jobRuns: () => ({ pk: keyKinds.jobRun }),
  /** The single use of a one-time validation-manager link, by its nonce (expires with the link). */
  oneTimeLinkUse: (nonce: string): ItemKey => ({ pk: `ONETIMELINK#${nonce}`, sk: 'ONETIMELINK' }),
  /**
   * Certificate requests still validating, in one partition the scheduled DCV check reads with one
   * Query (written with the process, deleted when it completes).
   */
  openCertificateRequest: (processId: number): ItemKey => ({ pk: 'CERTREQUEST#OPEN', sk: `CERTREQUEST#${pad(processId)}` }),
  openCertificateRequests: () => ({ pk: 'CERTREQUEST#OPEN' }),
  /**
   * The slots of a counted side effect of a process (an FOA or DCV e-mail resent), taken before the
   * outside party is asked: in the process's partition, beside (never inside) the process item, so
   * a whole-item write of the process leaves them alone.
   */
  processEffectSlots: (processId: number, effect: string): ItemKey => ({ pk: `${keyKinds.process}${processId}`, sk: `SLOTS#${effect}` }),

  /**
   * One shard of a customer's process counts (shared/db/repositories/process-counts.ts): a process
   * counts in shard `id % shards`, so a busy customer's count writes spread over that many
   * partitions; a count is the sum of the shards, read with one BatchGet.
   */
  processCounts: (customer: string, shard: number): ItemKey => ({ pk: `PROCESSCOUNTS#${customer}#${shard}`, sk: 'PROCESSCOUNTS' }),
  /** Where a scheduled job that works through many invocations stands (the count repair's cursor). */
  jobState: (job: string): ItemKey => ({ pk: `JOBSTATE#${job}`, sk: 'JOBSTATE' }),

  /**
   * A customer's notification, by id, in the customer's partition; listed by fire date through
   * gsi2 (every notification) and, while unacknowledged, through gsi1 (the poll queue: an ack
   * removes the gsi1 keys, so the queue holds only what waits). Ids are up to 16 digits.
   */
  notification: (customer: string, id: number, fireDate: string, unacknowledged: boolean): ItemKey => {
    const listing = `NOTIFICATION#${fireDate}#${String(id).padStart(16, '0')}`;
    return {
      ...keys.notificationById(customer, id),
      gsi2pk: keys.notificationsOfCustomer(customer).gsi2pk,
      gsi2sk: listing,
      ...(unacknowledged ? { gsi1pk: keys.unacknowledgedNotifications(customer).gsi1pk, gsi1sk: listing } : {}),
    };
  },
  notificationById: (customer: string, id: number) => ({
    pk: `${keyKinds.notification}${customer}`,
    sk: `NOTIFICATION#${String(id).padStart(16, '0')}`,
  }),
  notificationsOfCustomer: (customer: string) => ({ gsi2pk: `${keyKinds.notification}${customer}` }),
  unacknowledgedNotifications: (customer: string) => ({ gsi1pk: `${keyKinds.notification}${customer}#UNACK` }),
  /**
   * One shard of a customer's notification counts (shared/db/repositories/notification-counts.ts):
   * a notification counts in shard `id % shards`, in the customer's notification kind (so the
   * grants of `notification` cover it) but a partition of its own per shard.
   */
  notificationCounts: (customer: string, shard: number): ItemKey => ({
    pk: `${keyKinds.notification}${customer}#COUNTS#${shard}`,
    sk: 'NOTIFICATIONCOUNTS',
  }),

  /** The count of one caller's calls of one operation in one window (a fixed-window rate limit), expiring with it. */
  rateLimit: (operation: string, caller: string, windowStart: string): ItemKey => ({
    pk: `${keyKinds.rateLimit}${operation}#${caller}`,
    sk: `WINDOW#${windowStart}`,
  }),

  /** A customer's webhook endpoint (at most one), and its dead letters beside it. */
  webhook: (customer: string): ItemKey => ({ pk: `${keyKinds.webhook}${customer}`, sk: 'WEBHOOK' }),
  webhookDeadLetter: (customer: string, notificationId: number): ItemKey => ({
    pk: `${keyKinds.webhook}${customer}`,
    sk: `DEADLETTER#${String(notificationId).padStart(16, '0')}`,
  }),
  webhookDeadLetters: (customer: string) => ({ pk: `${keyKinds.webhook}${customer}`, skPrefix: 'DEADLETTER#' }),
  /**
   * A delivery waiting for its next attempt, beside the customer's endpoint, and listed by due
   * time in one gsi1 partition (the retry job reads what is due, as the transfer poller does).
   */
  webhookDelivery: (customer: string, notificationId: number, dueDate?: string): ItemKey => ({
    pk: `${keyKinds.webhook}${customer}`,
    sk: `DELIVERY#${String(notificationId).padStart(16, '0')}`,
    ...(dueDate !== undefined
      ? { gsi1pk: 'WEBHOOK#DELIVERIESDUE', gsi1sk: `DELIVERY#${dueDate}#${customer}#${String(notificationId).padStart(16, '0')}` }
      : {}),
  }),
  webhookDeliveries: (customer: string) => ({ pk: `${keyKinds.webhook}${customer}`, skPrefix: 'DELIVERY#' }),
  webhookDeliveriesDue: (at: string) => ({ gsi1pk: 'WEBHOOK#DELIVERIESDUE', gsi1skMin: 'DELIVERY#', gsi1skMax: `DELIVERY#${at}#~` }),
} as const;
