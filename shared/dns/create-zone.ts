import { type CommitWith, itemsOf } from '../db/repositories/commit-with.ts';
import { nextId } from '../db/repositories/counters.ts';
import { createZoneRecord, zoneNameTaken } from '../db/repositories/zone-writes.ts';
import { countZonesAlong } from '../db/repositories/zones.ts';
import { AuthorizationError, ObjectExists, ValidationError } from '../errors.ts';
import { premiumPaidUntil, type ZoneRecord, type ZoneRecordEntry } from '../model/zone.ts';
import { now as clock, toWireTime } from '../time.ts';
import { maxZonesPerCustomer } from './list-zones.ts';
import { becomesPremium, chargeZoneWrite, quoteZoneWrite, type ZoneCaller, type ZoneWriteOutcome } from './premium-charge.ts';
import { renderZone, replaceDomain } from './zone.ts';
import { checkZone, copiedRecords, defaultSoa, templateOf, toEntry } from './zone-edit.ts';
import type { CreateZoneCommand } from './zone-request.ts';
import type { VersionedZone } from './zone-view.ts';

/**
 * A new zone of the caller (`POST /v2/dns/zones`, the SDKs' dnsZones->create): a plain zone of
 * the DNS service (`managed: false`; a domain's transfer makes a zone of its name managed), served
 * by the DNS provider within a second of the answer (the table's stream carries it to the sync).
 *
 * From `template` when one is given (the caller's), linked unless `link` is false: a linked zone
 * keeps the template's records as the template has them, and the request's `records` are added to
 * them. SOA settings: the request's, else the template's, else the service's defaults. The whole
 * zone is checked as a name server would (shared/model/zone-rules.ts) before anything is written.
 * One zone per name: a name that has a zone (anyone's) or another customer's domain is refused
 * (ObjectExists). A customer holds at most maxZonesPerCustomer zones.
 *
 * A PREMIUM zone is charged (`dns_premium`, premium-charge.ts) in the transaction that creates it;
 * with `quoteOnly` the quote is answered and nothing is written.
 */
export async function createZone(
  who: ZoneCaller,
  command: CreateZoneCommand,
  quoteOnly: boolean,
  commitWith: CommitWith<VersionedZone>,
): Promise<ZoneWriteOutcome> {
  const caller = who.customer;
  if (command.customer !== undefined && command.customer !== caller) {
    throw new AuthorizationError(`Zones of customer '${command.customer}' cannot be created with this key.`);
  }
  const domainName = command.name;
  const template = command.template === undefined ? undefined : await templateOf(caller, command.template);
  const linked = template !== undefined && command.link !== false;
  const given: ZoneRecordEntry[] = (command.records ?? []).map(toEntry);
  // A linked zone keeps the template's records as the template has them; the request's records are the zone's own.
  const fromTemplate = !template ? [] : linked ? template.records : copiedRecords(template.records, domainName);
  const now = clock();
  const at = toWireTime(now);
  const zone: ZoneRecord = {
    id: 0,
    domainName,
    customer: caller,
    managed: false,
    service: command.service ?? 'BASIC',
    // Its first year is paid by this create; the expiry job charges the next ones (premium-renewal.ts).
    ...(command.service === 'PREMIUM' ? { paidUntil: premiumPaidUntil(at) } : {}),
    ...(template ? { template: template.name, link: linked } : {}),
    ...(command.master !== undefined ? { master: command.master } : {}),
    dnssec: command.dnssec ?? false,
    ...(command.ns !== undefined && command.ns.length > 0 ? { ns: command.ns } : {}),
    hostMaster: command.hostMaster ?? (template ? replaceDomain(template.hostMaster, domainName) : `hostmaster@${domainName}`),
    refresh: command.refresh ?? template?.refresh ?? defaultSoa.refresh,
    retry: command.retry ?? template?.retry ?? defaultSoa.retry,
    expire: command.expire ?? template?.expire ?? defaultSoa.expire,
    ttl: command.ttl ?? template?.ttl ?? defaultSoa.ttl,
    records: [...fromTemplate, ...given],
    createdDate: at,
  };
  checkZone(zone);
  const quoted = await quoteZoneWrite(caller, 'CreateDnsZoneCommand', becomesPremium(undefined, zone), domainName, now);
  if (quoteOnly) return { quote: quoted.body };
  const taken = () => new ObjectExists(`The name ${domainName} has a zone already, or is a domain of another account.`);
  if (await zoneNameTaken(domainName, caller)) throw taken();
  const max = maxZonesPerCustomer();
  if ((await countZonesAlong(caller, max, true)).counted >= max) {
    throw new ValidationError(`A customer holds at most ${max} zones; delete one first.`);
  }
  const created: ZoneRecord = { ...zone, id: await nextId('zone') };
  const charge = await chargeZoneWrite(quoted, command.billables, who, created, 'create', now);
  const answer: VersionedZone = { view: renderZone(created), revision: 1, ...(charge ? { processId: charge.processId } : {}) };
  const refused = await createZoneRecord(created, [...(charge?.items ?? []), ...itemsOf(commitWith(answer))]);
  if (refused) throw taken();
  return answer;
}
