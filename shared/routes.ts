/**
 * The route table: the single source of truth for the API. The CDK stack, the local gateway and
 * the 404/405 answers are all built from it. It names handler modules by path and imports none,
 * so reading it costs nothing at run time.
 */

/** A DynamoDB action (its IAM name). A transaction needs the action of each of its items. */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  /** Writes of many items at once (a zone's records, staged and deleted 25 a request). */
  | 'BatchWriteItem';

/**
 * What a function does to the table, and so exactly what the stack grants it (least privilege,
 * architecture practice 8; test/table-grants.test.ts checks each function does what it declares):
 * its actions; `index` when it queries gsi1; and `only` when it touches a few kinds of item and no
 * others, named as in shared/db/keys.ts `keyKinds` (`apiKey` is `APIKEY#...`): its grant is then
 * limited to their partitions (`dynamodb:LeadingKeys`). Never Scan: request paths and jobs read by key.
 */
export interface TableUse {
  actions: readonly TableAction[];
  index?: true;
  only?: readonly string[];
}

/** Reading one item of a kind by key (GetItem). */
const getOnly = (...only: string[]): TableUse => ({ actions: ['GetItem'], only });

import type { Integration, StackSecret } from './integrations.ts';

// The integrations and secrets live in a module of their own, so that a function reading them (the
// registry and authority selection) does not bundle the route table; they are named here too.
export {
  type AuthorityImplementation,
  authorityImplementations,
  type DnsImplementation,
  dnsImplementations,
  type Integration,
  integrationImplementations,
  integrationSettings,
  type RegistryImplementation,
  registryImplementations,
  rtrSettings,
  type StackSecret,
} from './integrations.ts';

/** What a function reaches beyond the table: the stack's secrets and the outside parties. */
export interface Reach {
  /** Secrets of the stack it reads itself (an integration's come with the integration). */
  secrets?: readonly StackSecret[];
  /**
   * The integrations it works with (the stage says which implementation; see integrationSettings).
   * It is handed each one's settings, secrets and grants (infra/stages.ts, infra/dns.ts) unless it
   * names the integration in `namesOnly`.
   */
  integrations?: readonly Integration[];
  /** Those of `integrations` it only names and never calls: told which implementation runs, handed nothing of it. */
  namesOnly?: readonly Integration[];
  /**
   * What it does with the stack's key for webhook secrets (envelope encryption, docs/security.md):
   * `GenerateDataKey` to seal a new secret, `Decrypt` to open one. Deployed, exactly these actions
   * on that key, and the key's ARN in `WEBHOOK_SECRETS_KMS_KEY_ID`; absent: none.
   */
  dataKeys?: readonly ('GenerateDataKey' | 'Decrypt')[];
}

export interface Route extends Reach {
  /** Stable id: the function's name in the stack and the route's name in logs. */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway resource path, `{param}` segments. */
  path: string;
  /** Folder under functions/ holding `handler.ts`. */
  dir: string;
  /** What the function does to the table (see TableUse); absent: no access at all. */
  table?: TableUse;
  summary: string;
  /** Extra environment variables the deployed function needs (the stack sets TABLE_NAME itself). */
  environment?: Record<string, string>;
  /** False for a public route, served without the API-key authorizer (only the API description). */
  auth?: false;
}

export const routes: readonly Route[] = [
  {
    id: 'provider-info',
    method: 'GET',
    path: '/v2/providers/REGISTRY/{name}/info',
    dir: 'provider-info',
    table: getOnly('provider'),
    summary: 'Registry metadata: extensions, periods, auth-code rules, DNSSEC limits, properties.',
  },
  {
    id: 'pricelist',
    method: 'GET',
    path: '/v2/customers/{customer}/pricelist',
    dir: 'pricelist',
    // Its snapshot (one Query); when that is stale, the list whole, then the new snapshot stored (its parts, the head's switch).
    table: { actions: ['Query', 'BatchWriteItem', 'UpdateItem'], only: ['priceList', 'rates', 'priceSnapshot'] },
    summary: "The caller's price list: current prices, scheduled changes, promos; optionally converted (?currency=EUR|USD).",
  },
  {
    id: 'zone',
    method: 'GET',
    path: '/v2/domains/{domainName}/zone',
    dir: 'zone',
    // The caller's partition of the name in gsi3 (its key starts with the domain kind's prefix), the table where it is not yet placed.
    table: { actions: ['Query'], index: true, only: ['domain'] },
    // It says whether the DNS provider serves the zone (DNS_PROVIDER names it; nothing is called).
    integrations: ['dns'],
    namesOnly: ['dns'],
    summary: "The DNS zone of a domain in the caller's account, as JSON or (Accept: text/dns) an RFC 1035 zone file.",
  },
  {
    id: 'transfer',
    method: 'POST',
    path: '/v2/domains/{domainName}/transfer',
    dir: 'transfer',
    integrations: ['registry'],
    // Reads the account, the name, the registry and the price list; one transaction records the
    // transfer (puts, a counter update, absence checks); Idempotency-Key records are put, updated, deleted.
    // A transfer that completes at once provisions its zone: the records are staged with BatchWriteItem.
    table: { actions: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem', 'BatchWriteItem'] },
    summary: 'Transfer a domain into the account (?quote=true: the quote and plan only); Idempotency-Key supported.',
  },
  {
    id: 'renew',
    method: 'POST',
    path: '/v2/ssl/certificates/{certificateId}/renew',
    dir: 'renew',
    integrations: ['authority'],
    namesOnly: ['authority'],
    table: { actions: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    secrets: ['ONE_TIME_LINK_SECRET'],
    summary: 'Renew a certificate in its renewal window with a fresh CSR (?quote=true prices it); opens a certificate process.',
  },
  {
    id: 'process-info',
    method: 'GET',
    path: '/v2/processes/{processId}/info',
    dir: 'process-info',
    table: { actions: ['GetItem', 'Query'], only: ['process', 'certificateAuthority'] },
    secrets: ['ONE_TIME_LINK_SECRET'],
    summary: 'Context specific info on a process: certificate and acme validations with nextAction, transfer status.',
  },
  {
    id: 'process',
    method: 'GET',
    path: '/v2/processes/{processId}',
    dir: 'process',
    table: { actions: ['Query'], only: ['process'] },
    summary: 'A process of the caller: status, statusDetail, resumeTypes, billables, command, refund (?fields= limits it).',
  },
  {
    id: 'processes',
    method: 'GET',
    path: '/v2/processes',
    dir: 'processes',
    table: { actions: ['Query', 'BatchGetItem'], index: true },
    summary:
      "The caller's processes, a page at a time: limit, offset, order, fields, total and filters (field=value, field:matcher=value).",
  },
  {
    id: 'process-cancel',
    method: 'DELETE',
    path: '/v2/processes/{processId}',
    dir: 'process-cancel',
    // The registry cancels a transfer; the authority a certificate request (an ACME order is withdrawn by the DCV job).
    integrations: ['registry', 'authority'],
    namesOnly: ['authority'],
    // The process (owner-filtered Query), the registry's record or the zones' headers; one
    // transaction (updates, the open-request marker deleted, the identifier listing put); Idempotency-Key records.
    table: { actions: ['Query', 'BatchGetItem', 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    summary: 'Cancel a waiting transfer (at the registry; refunded) or a certificate request still validating; Idempotency-Key supported.',
  },
  {
    id: 'process-resend',
    method: 'POST',
    path: '/v2/processes/{processId}/resend',
    dir: 'process-resend',
    integrations: ['registry', 'authority'],
    namesOnly: ['authority'],
    // The process, the registry's record; one update or transaction; Idempotency-Key records (a
    // replay reads one, a refused request deletes its claim).
    table: { actions: ['Query', 'BatchGetItem', 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    summary: "Resend a pendingfoa transfer's FOA e-mail or a certificate request's DCV e-mails; Idempotency-Key supported.",
  },
  {
    id: 'transfer-info',
    method: 'GET',
    path: '/v2/domains/{domainName}/transfer/{processId}',
    dir: 'transfer-info',
    table: { actions: ['Query'], only: ['process'] },
    summary: 'Where a transfer of the caller stands: status, dates, the losing registrar, and the log of every status it went through.',
  },
  {
    id: 'tld-info',
    method: 'GET',
    path: '/v2/tlds/{tld}/info',
    dir: 'tld-info',
    table: { actions: ['BatchGetItem'], only: ['provider', 'extension'] },
    summary: 'The metadata of the registry serving a TLD (longest match), in the shape the SDKs read: applicableFor, provider, metadata.',
  },
  {
    id: 'provider',
    method: 'GET',
    path: '/v2/providers/{name}',
    dir: 'provider',
    table: getOnly('provider'),
    summary: 'A registry and the TLDs it serves.',
  },
  {
    // The same answer at the path the PHP SDK's providers->get() calls (the spec's REGISTRY segment).
    id: 'provider-by-kind',
    method: 'GET',
    path: '/v2/providers/REGISTRY/{name}',
    dir: 'provider',
    table: getOnly('provider'),
    summary: 'A registry and the TLDs it serves (the path of the PHP SDK).',
  },
  {
    id: 'openapi',
    method: 'GET',
    path: '/v2/openapi.json',
    dir: 'openapi',
    auth: false,
    summary: "This API's OpenAPI 3.1 description, generated from the route table and the request and response schemas.",
  },
  {
    id: 'health',
    method: 'GET',
    path: '/v2/health',
    dir: 'health',
    auth: false,
    // The jobs' last runs, one Query of their partition; told which DNS provider runs, never calling it.
    table: { actions: ['Query'], only: ['jobRun'] },
    integrations: ['dns'],
    namesOnly: ['dns'],
    summary: 'Whether the table, DNS and the scheduled jobs are up (no authentication; one read; 503 when the table does not answer).',
  },
  {
    id: 'certificate',
    method: 'GET',
    path: '/v2/ssl/certificates/{certificateId}',
    dir: 'certificate',
    // The certificate (owner-filtered Query), then its product (configuration, cached).
    table: { actions: ['Query', 'GetItem'], only: ['certificate', 'certificateProduct'] },
    summary: 'A certificate of the caller: product, names, dates, status, key, and the certificate itself once the authority delivered it.',
  },
  {
    id: 'certificates',
    method: 'GET',
    path: '/v2/ssl/certificates',
    dir: 'certificates',
    // The customer's partition of gsi1 (pages), gsi1keys (offset, count), gsi1list (id and status);
    // an exact id's owner-filtered Query; a page of summaries' certificates (BatchGet); their products (cached).
    table: { actions: ['Query', 'BatchGetItem', 'GetItem'], index: true },
    summary:
      "The caller's certificates, a page at a time: limit, offset, order, fields, total, q, export and filters (field=value, field:matcher=value).",
  },
  {
    id: 'certificate-download',
    method: 'GET',
    path: '/v2/ssl/certificates/{certificateId}/download',
    dir: 'certificate-download',
    table: { actions: ['Query'], only: ['certificate'] },
    summary: 'A certificate of the caller as a file: CRT, CA, CA_BUNDLE, PKCS7, CSR, or all of them in a ZIP (the default).',
  },
  {
    // The PHP SDK's transferInfo($domain) without a process id: the caller's latest transfer of the name.
    id: 'transfer-latest',
    method: 'GET',
    path: '/v2/domains/{domainName}/transfer',
    dir: 'transfer-latest',
    // The name's process listing of the caller (newest first), then its processes (BatchGet).
    table: { actions: ['Query', 'BatchGetItem'], only: ['processIdentifier', 'process'] },
    summary: "The caller's latest transfer of a domain name: status, dates, the losing registrar and the log.",
  },
  {
    id: 'providers',
    method: 'GET',
    path: '/v2/providers',
    dir: 'providers',
    // The registries, listed by kind in gsi1.
    table: { actions: ['Query'], index: true },
    summary: 'The registries and the TLDs each serves, a page at a time (limit, offset, q, order, total).',
  },
  {
    id: 'ssl-products',
    method: 'GET',
    path: '/v2/ssl/products',
    dir: 'ssl-products',
    // The catalogue's partition (one Query) and the authorities' brands (one BatchGet).
    table: { actions: ['Query', 'BatchGetItem'], only: ['certificateProduct', 'certificateAuthority'] },
    summary: 'The SSL product catalogue, a page at a time (limit, offset, q, order, total).',
  },
  {
    id: 'ssl-product',
    method: 'GET',
    path: '/v2/ssl/products/{product}',
    dir: 'ssl-product',
    table: { actions: ['GetItem'], only: ['certificateProduct', 'certificateAuthority'] },
    summary: 'One SSL product: brand, validation and certificate type, periods, renewal window, the fields it uses.',
  },
  {
    id: 'exchange-rates-info',
    method: 'GET',
    path: '/v2/exchangerates/{currency}',
    dir: 'exchange-rates-info',
    table: { actions: ['Query'], only: ['rates'] },
    summary: 'What one EUR or USD buys of each other currency, at the latest stored ECB reference rates.',
  },
  {
    id: 'exchange-rates-list',
    method: 'GET',
    path: '/v2/exchangerates',
    dir: 'exchange-rates-list',
    table: { actions: ['Query'], only: ['rates'] },
    summary: 'The exchange rates of EUR and of USD, at the latest stored ECB reference rates.',
  },
  {
    // Before the notification by id, so `poll` is never read as an id.
    id: 'notification-poll',
    method: 'GET',
    path: '/v2/customers/{customer}/notifications/poll',
    dir: 'notification-poll',
    // The oldest of the queue's index (a Query), re-read by key; the count shards (a BatchGet).
    table: { actions: ['Query', 'GetItem', 'BatchGetItem'], index: true, only: ['notification'] },
    summary: 'How many notifications of the caller wait unacknowledged, and the oldest of them (the same one until it is acknowledged).',
  },
  {
    id: 'notifications',
    method: 'GET',
    path: '/v2/customers/{customer}/notifications',
    dir: 'notifications',
    // The page (a Query), the total from the count shards (a BatchGet).
    table: { actions: ['Query', 'BatchGetItem'], index: true, only: ['notification'] },
    summary: "The caller's notifications, a page at a time: limit, offset, order, fields, total (by default), q and filters.",
  },
  {
    id: 'notification',
    method: 'GET',
    path: '/v2/customers/{customer}/notifications/{notificationId}',
    dir: 'notification',
    table: { actions: ['UpdateItem'], only: ['notification'] },
    summary: 'A notification of the caller; reading it marks it read.',
  },
  {
    id: 'notification-ack',
    method: 'POST',
    path: '/v2/customers/{customer}/notifications/{notificationId}/ack',
    dir: 'notification-ack',
    // The notification and its count shard in one transaction; acknowledged already: read.
    table: { actions: ['UpdateItem', 'GetItem'], only: ['notification'] },
    summary: 'Acknowledges a notification of the caller: it leaves the poll queue.',
  },
  {
    id: 'webhook-put',
    method: 'PUT',
    path: '/v2/customers/{customer}/webhook',
    dir: 'webhook-put',
    table: { actions: ['UpdateItem'], only: ['webhook'] },
    dataKeys: ['GenerateDataKey'],
    summary: "Registers the caller's webhook endpoint (the signing secret answered once), or moves it to a new URL.",
  },
  {
    id: 'webhook',
    method: 'GET',
    path: '/v2/customers/{customer}/webhook',
    dir: 'webhook',
    table: getOnly('webhook'),
    summary: "The caller's webhook endpoint and its delivery state, without the secret.",
  },
  {
    id: 'webhook-delete',
    method: 'DELETE',
    path: '/v2/customers/{customer}/webhook',
    dir: 'webhook-delete',
    table: { actions: ['DeleteItem'], only: ['webhook'] },
    summary: "Removes the caller's webhook endpoint.",
  },
  {
    id: 'webhook-rotate',
    method: 'POST',
    path: '/v2/customers/{customer}/webhook/rotate',
    dir: 'webhook-rotate',
    table: { actions: ['GetItem', 'UpdateItem'], only: ['webhook'] },
    dataKeys: ['GenerateDataKey'],
    summary: 'Issues a new webhook signing secret (answered once); the previous one keeps signing for a day.',
  },
  {
    id: 'webhook-dead-letters',
    method: 'GET',
    path: '/v2/customers/{customer}/webhook/dead-letters',
    dir: 'webhook-dead-letters',
    table: { actions: ['Query'], only: ['webhook'] },
    summary: "The notifications the caller's webhook never took (after the last attempt, a 410, or with the endpoint gone).",
  },
  {
    id: 'webhook-redeliver',
    method: 'POST',
    path: '/v2/customers/{customer}/webhook/dead-letters/{notificationId}/redeliver',
    dir: 'webhook-redeliver',
    // One transaction: the dead letter deleted, the delivery put back in the retry lane.
    table: { actions: ['DeleteItem', 'PutItem'], only: ['webhook'] },
    summary: 'Puts a dead letter back into the webhook retry lane, due at once.',
  },
  {
    id: 'dns-zones',
    method: 'GET',
    path: '/v2/dns/zones',
    dir: 'dns-zones',
    // The caller's zone headers on gsi1 (ZONES#<customer>), counted and skipped over gsi1keys.
    table: { actions: ['Query'], index: true },
    summary:
      "The caller's DNS zones, a page at a time: limit, offset, order, fields, total, q and filters (name, service, template, dnssec, managed).",
  },
  {
    id: 'dns-zone',
    method: 'GET',
    path: '/v2/dns/zones/{zoneId}',
    dir: 'dns-zone',
    // The header by id on gsi2 (owner-filtered), again by name (consistent), its records and its DNS standing.
    table: { actions: ['Query', 'GetItem'], index: true },
    integrations: ['dns'],
    namesOnly: ['dns'],
    summary: 'A DNS zone of the caller by id: settings, SOA timers, default records, records, and whether DNS serves it as shown.',
  },
  {
    id: 'dns-zone-create',
    method: 'POST',
    path: '/v2/dns/zones',
    dir: 'dns-zone-create',
    // The template, the zone count (gsi1keys), the id counter; the records staged (BatchWrite: puts, deletes
    // of a refused write's), then one transaction (the header put, the name's domain checked; a PREMIUM zone's
    // charge: its dns_premium prices read (Query), the process id counter, the process, its listing and counts); Idempotency-Key records.
    table: { actions: ['GetItem', 'Query', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem', 'BatchWriteItem'], index: true },
    summary:
      'Creates a DNS zone of the caller (from a template, linked or not; PREMIUM charged dns_premium, ?quote=true), served by DNS within a second; Idempotency-Key supported.',
  },
  {
    id: 'dns-zone-update',
    method: 'POST',
    path: '/v2/dns/zones/{zoneId}/update',
    dir: 'dns-zone-update',
    // The header by id (gsi2) and by name, its records, the template; the records staged, the header put
    // under its revision (a transaction; a move to PREMIUM adds its charge: the dns_premium prices read, the
    // process id counter, the process, its listing and counts), the old records deleted; Idempotency-Key records.
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'], index: true },
    summary: 'Changes a DNS zone of the caller (records: the whole set), If-Match against lost edits; served by DNS within a second.',
  },
  {
    id: 'dns-zone-delete',
    method: 'DELETE',
    path: '/v2/dns/zones/{zoneId}',
    dir: 'dns-zone-delete',
    // The header by id (gsi2) and by name; the header deleted under its revision (a transaction), then its records.
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'], index: true },
    summary: 'Deletes a DNS zone of the caller; DNS stops serving it within a second; Idempotency-Key supported.',
  },
  {
    id: 'dns-zone-stats',
    method: 'GET',
    path: '/v2/dns/zones/{zoneId}/stats',
    dir: 'dns-zone-stats',
    // The header by id on gsi2 (owner-filtered), again by name (consistent); then the provider's query counts.
    table: { actions: ['Query', 'GetItem'], index: true },
    integrations: ['dns'],
    summary: "A DNS zone's query counts per day (qcount, nxcount), as the DNS provider counts them (PowerDNS; none with Route 53).",
  },
  {
    id: 'dns-zone-key-rollover',
    method: 'POST',
    path: '/v2/dns/zones/{zoneId}/key-rollover',
    dir: 'dns-zone-key-rollover',
    // The header by id (gsi2) and by name, its DNS standing, the process id counter; one transaction (the
    // header's keyRollover under its revision, the process, its identifier listing and counts); Idempotency-Key records.
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'], index: true },
    summary: "Starts a signed zone's key rollover: a new key beside the old one, a process waiting for the parent's DS (ack-ds-update).",
  },
  {
    id: 'dns-zone-retrieve',
    method: 'POST',
    path: '/v2/dns/zones/{zoneId}/retrieve',
    dir: 'dns-zone-retrieve',
    // The header by id (gsi2) and by name, its records; then the AXFR from the zone's master (TCP, bounded); the
    // records staged, the header put under its revision (a transaction), the old records deleted; a failure's
    // notification (the process id counter numbers it); Idempotency-Key records (a failed request's claim deleted).
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'], index: true },
    summary: "Replaces a DNS zone's records with its hidden master's (AXFR), served by DNS within a second; a failure is notified.",
  },
  {
    id: 'process-ack-ds-update',
    method: 'POST',
    path: '/v2/processes/{processId}/ack-ds-update',
    dir: 'process-ack-ds-update',
    // The process (owner-filtered), the zone's header and DNS standing; one transaction (the header's keyRollover
    // under its revision, the process completed, its counts); Idempotency-Key records.
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'] },
    summary: "Acknowledges a key rollover's new DS at the parent: the process completes and the zone's old key is retired.",
  },
  {
    id: 'zone-update',
    method: 'POST',
    path: '/v2/domains/{domainName}/zone/update',
    dir: 'zone-update',
    // The domain (owner-filtered Query) and the zone's header (consistent), its records, the template; then as dns-zone-update.
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'] },
    summary: "Changes the zone of a domain in the caller's account, as the zone update by id does.",
  },
  {
    id: 'domain',
    method: 'GET',
    path: '/v2/domains/{domainName}',
    dir: 'domain',
    // The name's collection (domain, zone header, running transfer) in one Query.
    table: { actions: ['Query'], only: ['domain'] },
    summary:
      'A domain of the caller: registrant, contacts, name servers, statuses (the lock), expiry, authcode, zone (?fields= limits it).',
  },
  {
    id: 'domains',
    method: 'GET',
    path: '/v2/domains',
    dir: 'domains',
    // By name (gsi1), by expiry (gsi2), or one status's listing then its domains (BatchGet); the kept counts (GetItem).
    table: { actions: ['Query', 'BatchGetItem', 'GetItem'], index: true },
    summary:
      "The caller's domains, a page at a time: limit, offset, order, fields, total, export and filters (expiryDate ranges, status, ...).",
  },
  {
    id: 'domain-update',
    method: 'POST',
    path: '/v2/domains/{domainName}/update',
    dir: 'domain-update',
    integrations: ['registry'],
    // The domain, its contacts, its registry and prices, its zone and template; the process and zone
    // ids; one transaction (the domain guarded, its zone, its status listing, the process, counts,
    // notification); a new or re-linked zone's records staged and the old ones deleted with
    // BatchWriteItem; Idempotency-Key records.
    table: { actions: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'] },
    summary:
      'Change a domain: name servers, lock and CLIENT_* statuses, privacy, auto-renew, EPP code, registrant and contacts, DNSSEC, its managed zone (?quote=true prices it); Idempotency-Key supported.',
  },
  {
    id: 'domain-register',
    method: 'POST',
    path: '/v2/domains/{domainName}',
    dir: 'domain-register',
    integrations: ['registry'],
    // Reads the account, the name, the registry and the price list; one transaction records the
    // registration (puts, counter updates, absence checks); a new zone's records are staged with
    // BatchWriteItem; Idempotency-Key records are put, updated, deleted.
    table: { actions: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem', 'BatchWriteItem'] },
    summary:
      'Register a domain (?quote=true prices it): 201 with expiryDate when registered at once, 202 while pending; Idempotency-Key supported.',
  },
  {
    id: 'domain-check',
    method: 'GET',
    path: '/v2/domains/{domainName}/check',
    dir: 'domain-check',
    integrations: ['registry'],
    // The caller's count in its window (a conditional ADD), the extension's registry, a name held here, the price list.
    table: { actions: ['UpdateItem', 'BatchGetItem', 'GetItem', 'Query'] },
    summary:
      'Whether a name can be registered: available, reason, premium and its prices; rate limited per API key (429 with Retry-After).',
  },
  {
    id: 'domain-renew',
    method: 'POST',
    path: '/v2/domains/{domainName}/renew',
    dir: 'domain-renew',
    integrations: ['registry'],
    // The domain, its registry (BatchGet) and prices (Query); the process id; one transaction (the
    // domain guarded, its status and expiry listings, the process, counts, notification); Idempotency-Key records.
    table: { actions: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    summary:
      'Renew a domain for a period, with an optional expiry guard (?quote=true prices it); charges RENEW; Idempotency-Key supported.',
  },
  {
    id: 'domain-delete',
    method: 'DELETE',
    path: '/v2/domains/{domainName}',
    dir: 'domain-delete',
    integrations: ['registry'],
    // The domain (a Query of its item, filtered by owner) and its registry's redemption period; the
    // process id; one transaction as for renew.
    table: { actions: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    summary:
      'Delete a domain into its redemption period (restorable until it ends); refused while CLIENT_DELETE_PROHIBITED; Idempotency-Key supported.',
  },
  {
    id: 'domain-restore',
    method: 'POST',
    path: '/v2/domains/{domainName}/restore',
    dir: 'domain-restore',
    integrations: ['registry'],
    table: { actions: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    summary:
      'Restore a domain from its redemption period with a reason (?quote=true prices it); charges RESTORE; Idempotency-Key supported.',
  },
  // The address book (docs/contacts.md). A contact's writes are transactions with its count and,
  // with an Idempotency-Key, the key's record (put; deleted when the request is refused), so they
  // are not limited to the contact's partition; reads are.
  {
    id: 'contacts',
    method: 'GET',
    path: '/v2/customers/{customer}/contacts',
    dir: 'contacts',
    // A listing through the entries of a field's value reads its page's contacts with BatchGetItem.
    table: { actions: ['GetItem', 'Query', 'BatchGetItem'], index: true, only: ['contact'] },
    summary: "The caller's contacts, a page at a time: limit, offset, order, fields, total (by default), q, export and filters.",
  },
  {
    id: 'contact',
    method: 'GET',
    path: '/v2/customers/{customer}/contacts/{handle}',
    dir: 'contact',
    table: getOnly('contact'),
    summary: 'A contact of the caller (?fields= limits it).',
  },
  {
    id: 'contact-create',
    method: 'POST',
    path: '/v2/customers/{customer}/contacts/{handle}',
    dir: 'contact-create',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    summary: "Creates a contact in the caller's address book (201); Idempotency-Key supported.",
  },
  {
    id: 'contact-delete',
    method: 'DELETE',
    path: '/v2/customers/{customer}/contacts/{handle}',
    dir: 'contact-delete',
    // A contact mirrored at an upstream account is deleted there first (shared/contacts/upstream.ts).
    integrations: ['registry'],
    // Reads the customer's domains (gsi1) and open processes (gsi2) for uses of the handle.
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], index: true },
    summary: 'Deletes a contact nothing uses any more (204); Idempotency-Key supported.',
  },
  {
    id: 'contact-update',
    method: 'POST',
    path: '/v2/customers/{customer}/contacts/{handle}/update',
    dir: 'contact-update',
    // A contact mirrored at an upstream account is changed there first (shared/contacts/upstream.ts).
    integrations: ['registry'],
    table: { actions: ['GetItem', 'PutItem', 'DeleteItem'] },
    summary: 'Changes the fields sent of a contact of the caller ("" removes an optional one); Idempotency-Key supported.',
  },
  {
    id: 'contact-validate',
    method: 'POST',
    path: '/v2/customers/{customer}/contacts/{handle}/validate',
    dir: 'contact-validate',
    table: { actions: ['GetItem', 'PutItem', 'DeleteItem'] },
    summary: 'Validates a contact of the caller for the categories given; Idempotency-Key supported.',
  },
  {
    id: 'contact-split',
    method: 'POST',
    path: '/v2/customers/{customer}/contacts/{handle}/split',
    dir: 'contact-split',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    summary: 'Copies a contact of the caller to a new handle (201); Idempotency-Key supported.',
  },
  {
    // After update, validate and split: a registry named `update` would be read as those.
    id: 'contact-properties-add',
    method: 'POST',
    path: '/v2/customers/{customer}/contacts/{handle}/{registry}',
    dir: 'contact-properties-add',
    // A contact mirrored at an upstream account is changed there first (shared/contacts/upstream.ts).
    integrations: ['registry'],
    table: { actions: ['GetItem', 'PutItem', 'DeleteItem'] },
    summary: "Adds a contact's properties for one registry, checked against its metadata; Idempotency-Key supported.",
  },
  {
    id: 'contact-properties-update',
    method: 'POST',
    path: '/v2/customers/{customer}/contacts/{handle}/{registry}/update',
    dir: 'contact-properties-update',
    // A contact mirrored at an upstream account is changed there first (shared/contacts/upstream.ts).
    integrations: ['registry'],
    table: { actions: ['GetItem', 'PutItem', 'DeleteItem'] },
    summary: "Changes a contact's properties for one registry, checked against its metadata; Idempotency-Key supported.",
  },
];

/** Scheduled functions: same shape of entry, a schedule instead of a path. */
export interface Job extends Reach {
  id: string;
  dir: string;
  table: TableUse;
  /** EventBridge schedule expression (deployed) ... */
  schedule: string;
  /** ... and the interval at which `npm start` runs it locally. */
  localIntervalSeconds: number;
  summary: string;
  /** Extra environment variables the deployed function needs (the stack sets TABLE_NAME itself). */
  environment?: Record<string, string>;
}

export const jobs: readonly Job[] = [
  {
    id: 'transfer-poll',
    dir: 'transfer-poll',
    integrations: ['registry'],
    // A completed transfer's zone from a template: the template read, the records staged with BatchWriteItem.
    table: { actions: ['Query', 'BatchGetItem', 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'], index: true },
    schedule: 'rate(1 minute)',
    localIntervalSeconds: 10,
    summary: "Applies the registry's answers to pending transfers whose actionDate has passed (completes, rejects, fails).",
  },
  {
    id: 'dcv-check',
    dir: 'dcv-check',
    integrations: ['authority', 'dns'],
    table: { actions: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    schedule: 'rate(5 minutes)',
    localIntervalSeconds: 15,
    summary: 'Checks open certificate requests (DCV records in managed zones, sandbox authority checks) and issues validated certificates.',
  },
  {
    id: 'exchange-rates',
    dir: 'exchange-rates',
    // It parses XML fetched from the internet: it reads and writes exchange rates and nothing else.
    table: { actions: ['Query', 'PutItem'], only: ['rates', 'jobRun'] },
    // The ECB publishes around 16:00 CET on working days; 16:30 UTC is after that all year round.
    schedule: 'cron(30 16 * * ? *)',
    localIntervalSeconds: 3600,
    summary: "Fetches the ECB's daily euro reference rates and stores them under their date (idempotent).",
    environment: { ECB_RATES_URL: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml' },
  },
  {
    id: 'registry-metadata',
    dir: 'registry-metadata',
    integrations: ['registry'],
    // Reads each registry's stored metadata and writes it (with its extension index items) when the upstream changed it.
    table: { actions: ['GetItem', 'PutItem'], only: ['provider', 'extension', 'jobRun'] },
    schedule: 'rate(1 hour)',
    localIntervalSeconds: 300,
    summary:
      "Copies the registries' rules and TLD metadata from the upstream registry account into the table (none with the sandbox registry).",
  },
  {
    id: 'zone-reconcile',
    dir: 'zone-reconcile',
    integrations: ['dns'],
    // The zones the provider serves are listed on gsi1; each is read and its standing written in its domain's collection,
    // with the notification a push reports (a refusal, a key rollover's new key served) in the same transaction.
    table: { actions: ['Query', 'GetItem', 'UpdateItem', 'DeleteItem', 'PutItem'], index: true },
    schedule: 'rate(1 hour)',
    localIntervalSeconds: 300,
    summary: 'Compares every served zone with the DNS provider and repairs what drifted (docs/dns.md).',
  },
  {
    id: 'repair-counts',
    dir: 'repair-counts',
    // The customers' listing (gsi1keys) and the job's state; each customer's count shards (BatchGet),
    // its processes (gsi1, 1,000 a Query) and, where they drifted, its shards put under their version.
    // And the marks of each customer's listing for deep offsets (the last read, the new ones put).
    table: { actions: ['Query', 'GetItem', 'BatchGetItem', 'PutItem'], index: true },
    schedule: 'rate(1 hour)',
    localIntervalSeconds: 600,
    summary:
      "Recounts the customers' processes a bounded piece at a time and rewrites the process counts that drifted (the listing's total).",
  },
  {
    id: 'webhook-retry',
    dir: 'webhook-retry',
    // Due deliveries (index), each claimed, tried, then removed, rescheduled or made a dead letter.
    table: {
      actions: ['Query', 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      index: true,
      only: ['notification', 'webhook', 'jobRun'],
    },
    schedule: 'rate(1 minute)',
    localIntervalSeconds: 2,
    dataKeys: ['Decrypt'],
    summary:
      'Retries webhook deliveries whose next attempt is due (backoff with jitter over about three days, Retry-After honoured), then dead-letters them.',
  },
  {
    id: 'domain-expiry',
    dir: 'domain-expiry',
    integrations: ['registry'],
    // The due listing (gsi1), each domain, its customer's notice days, its registry (BatchGet) and
    // prices (Query); the process ids; one transaction per step (the domain guarded, its listings,
    // counts, process, notification), a removal deleting them. Then the PREMIUM zones due (gsi1), each
    // zone's header, one transaction per charged year or end; a stale due entry moved or deleted.
    table: { actions: ['Query', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], index: true },
    schedule: 'rate(1 hour)',
    localIntervalSeconds: 60,
    summary:
      'Acts on domains as they expire: expiry notices, auto-renewal (charged once), expiry, redemption and removal (docs/domains.md, "Life cycle"); charges the next year of PREMIUM zones whose paid year is over, or makes them BASIC (docs/zones-api.md).',
  },
];

/**
 * Functions fed by the table's stream (shared/db/table.ts): work that must follow a write, carried
 * by the stream instead of a second write path in the use cases. Deployed, each is an event source
 * mapping on the table's stream; `npm start` and the tests feed them from DynamoDB Local's stream
 * the same way (infra/local/streams.ts). Lambda's semantics hold in both: records arrive in order
 * per item, a batch is at most `batchSize` records and 6 MB, a handler answers
 * `{ batchItemFailures }` to have the batch retried from the first failed record, and a batch that
 * still fails after `retryAttempts` retries is reported to the consumer's on-failure queue and
 * skipped. A consumer is therefore idempotent: a record can arrive more than once.
 */
export interface StreamConsumer extends Reach {
  id: string;
  dir: string;
  /** What the function does to the table besides reading the stream (see TableUse). */
  table?: TableUse;
  /** The kinds of item whose changes it receives: the item's `entity` in its new or old image. */
  entities: readonly string[];
  /**
   * Only these kinds of change (deployed, a filter on the record's `eventName` and the old image's
   * `entity`); absent: every change of its entities. A TTL deletion is a `REMOVE`.
   */
  eventNames?: readonly ('INSERT' | 'MODIFY' | 'REMOVE')[];
  /** Most records in one invocation (Lambda: 1 to 10,000). */
  batchSize: number;
  /** Retries of a failing batch before it is reported and skipped (Lambda: 0 to 10,000). */
  retryAttempts: number;
  summary: string;
  environment?: Record<string, string>;
  /**
   * Fed through a queue rather than by the stream directly: deployed, an EventBridge Pipe reads the
   * stream (its `entities`' inserts only, `retryAttempts` retries, then its own failure queue) and
   * sends each record, as the stream gives it, to an SQS FIFO queue grouped by `groupBy`; the
   * function consumes the queue (`batchSize` at most 10) and reports partial batch failures; a
   * message received `maxReceiveCount` times goes to the queue's dead-letter queue. A failing
   * record then holds only its own group, never the stream's shard nor another group.
   */
  queue?: {
    /** The new image's string attribute naming the message group (FIFO order within it, none across). */
    groupBy: string;
    /** The new image's number attribute that deduplicates a record sent twice (within SQS's 5 minutes). */
    deduplicateBy: string;
    /** Receives of a message before it moves to the dead-letter queue. */
    maxReceiveCount: number;
    /** How long a received message stays hidden before it is received again (at least the function's timeout). */
    visibilityTimeoutSeconds: number;
  };
}

export const streamConsumers: readonly StreamConsumer[] = [
  {
    id: 'zone-sync',
    dir: 'zone-sync',
    // Every zone write changes the zone's header item: that is the change it follows.
    entities: ['zone'],
    batchSize: 100,
    retryAttempts: 20,
    integrations: ['dns'],
    // It reads the zone (header and records) and writes where the zone stands with the provider, in the zone's
    // collection; a refused zone's notification goes with that write (a transaction).
    table: { actions: ['GetItem', 'Query', 'UpdateItem', 'DeleteItem', 'PutItem'], only: ['domain', 'notification'] },
    summary: 'Makes the DNS provider serve each changed zone as the table has it (docs/dns.md).',
  },
  {
    id: 'webhook-deliver',
    dir: 'webhook-deliver',
    entities: ['notification'],
    // One message an invocation: a customer's first attempt (at most firstAttemptMs) never holds another
    // customer's message in the same batch; the customers' message groups are worked side by side.
    batchSize: 1,
    retryAttempts: 10,
    // One message group per customer: a customer whose delivery fails holds only its own notifications.
    queue: { groupBy: 'customer', deduplicateBy: 'id', maxReceiveCount: 5, visibilityTimeoutSeconds: 60 },
    // The endpoint and the notification (reads), the customer's retry lane (a Query, a conditional put),
    // the delivery and endpoint state (updates), a dead letter (a put).
    table: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'], only: ['notification', 'webhook'] },
    // Opens the endpoint's sealed secrets to sign.
    dataKeys: ['Decrypt'],
    summary: "Delivers each new notification to its customer's webhook at once, or queues it in the retry lane behind a failing delivery.",
  },
  {
    id: 'notification-counts',
    dir: 'notification-counts',
    entities: ['notification'],
    // Every deletion of a notification: the table's TTL at the end of its retention (docs/notifications.md).
    eventNames: ['REMOVE'],
    batchSize: 100,
    retryAttempts: 20,
    // One transaction per removed notification: its count shard, added to (no read).
    table: { actions: ['UpdateItem'], only: ['notification'] },
    summary: "Takes each deleted notification (the table's TTL at the end of its retention) from its customer's notification counts.",
  },
];

/** The API-key authorizer: not a route of its own, but a function all the same (API Gateway itself answers 404/405). */
export const authorizerDir = 'authorizer';
/** The authorizer reads API keys by their hash, nothing else. */
export const authorizerTable: TableUse = getOnly('apiKey');

/** How long API Gateway (and the local gateway) caches an authorizer's answer per key. */
export const authorizerCacheSeconds = 300;

export type RouteMatch =
  | { kind: 'route'; route: Route; pathParameters: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** The methods a route answers: its own, and HEAD beside GET (contract section 1). */
export function methodsOf(route: Pick<Route, 'method'>): string[] {
  return route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
}

/**
 * Finds the route for a request path (a trailing slash is accepted, contract section 1); HEAD is
 * served by the GET route of the path. A path that exists with other methods answers
 * method-not-allowed.
 */
export function matchRoute(method: string, rawPath: string): RouteMatch {
  const parts = segments(rawPath);
  const allow: string[] = [];
  for (const route of routes) {
    const pattern = segments(route.path);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let matched = true;
    for (let i = 0; i < pattern.length; i++) {
      const p = pattern[i] as string;
      const actual = parts[i] as string;
      if (p.startsWith('{') && p.endsWith('}')) {
        let value: string;
        try {
          value = decodeURIComponent(actual);
        } catch {
          value = actual;
        }
        params[p.slice(1, -1)] = value;
      } else if (p !== actual) {
        matched = false;
        break;
      }
    }
    if (!matched) continue;
    if (methodsOf(route).includes(method.toUpperCase())) return { kind: 'route', route, pathParameters: params };
    allow.push(...methodsOf(route));
  }
  // Two routes may share a path's shape (`.../notifications/poll` and `.../notifications/{notificationId}`): each method once.
  return allow.length > 0 ? { kind: 'method-not-allowed', allow: [...new Set(allow)] } : { kind: 'not-found' };
}
