import { servedRecords, type ZoneHeader, type ZoneRecord, type ZoneRecordEntry } from '../model/zone.ts';
import { type DnsConfig, dnsConfig } from './config.ts';
import type { DnsRecord, ZoneView } from './zone-view.ts';

/**
 * A stored zone as the API answers it (contract 3.6): `##DOMAIN##` replaced, `prio` exactly for MX
 * and SRV, and the SOA and NS records the service itself serves for the zone as `defaultRecords`.
 * Names and host names are fully qualified without a trailing dot, as stored.
 */

/** The placeholder that templates and linked zones use for the zone's own domain name. */
export const domainPlaceholder = '##DOMAIN##';

/** Replaces every `##DOMAIN##` (any case) with the domain name. */
export function replaceDomain(text: string, domainName: string): string {
  return text.replace(/##domain##/gi, domainName);
}

/** `hostmaster@example.com` as an SOA mailbox name: `hostmaster.example.com` (dots of the local part escaped). */
export function mailboxName(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 0) return email;
  return `${email.slice(0, at).replace(/\./g, '\\.')}.${email.slice(at + 1)}`;
}

/**
 * The SOA serial: the zone's last change in seconds since 1970 (RFC 1982 arithmetic holds until
 * 2106), so it grows with every change without a counter to keep; or the zone's `serial` where a
 * write raised it past that (a second change within one second: every write that reaches DNS
 * raises the serial by at least one, shared/db/repositories/zone-writes.ts).
 */
export function soaSerial(zone: Pick<ZoneRecord, 'createdDate' | 'updatedDate' | 'serial'>): number {
  return Math.max(zone.serial ?? 0, Math.floor(Date.parse(zone.updatedDate ?? zone.createdDate) / 1000));
}

/** The name servers that serve the zone: its vanity name servers, else the service's. */
export function zoneNameServers(zone: Pick<ZoneRecord, 'ns' | 'service'>, config: DnsConfig = dnsConfig()): string[] {
  return zone.ns && zone.ns.length > 0 ? zone.ns : config.nameServers[zone.service];
}

/** The SOA and NS records the service serves for a zone. */
export function defaultRecords(zone: ZoneHeader, config: DnsConfig = dnsConfig()): DnsRecord[] {
  const servers = zoneNameServers(zone, config);
  const soa = [servers[0], mailboxName(zone.hostMaster), soaSerial(zone), zone.refresh, zone.retry, zone.expire, config.negativeTtl].join(
    ' ',
  );
  return [
    { name: zone.domainName, type: 'SOA', content: soa, ttl: zone.ttl },
    ...servers.map((ns): DnsRecord => ({ name: zone.domainName, type: 'NS', content: ns, ttl: zone.ttl })),
  ];
}

/** A stored record for the wire: placeholder replaced in name and content, `prio` only for MX and SRV. */
export function renderRecord(record: ZoneRecordEntry, domainName: string): DnsRecord {
  const out: DnsRecord = {
    name: replaceDomain(record.name, domainName),
    type: record.type,
    content: replaceDomain(record.content, domainName),
    ttl: record.ttl,
  };
  if (record.type === 'MX' || record.type === 'SRV') out.prio = record.prio ?? 0;
  return out;
}

/** The zone as contract 3.6 answers it; optional fields appear only when set. */
export function renderZone(zone: ZoneRecord, config: DnsConfig = dnsConfig()): ZoneView {
  const view: ZoneView = {
    id: zone.id,
    name: zone.domainName,
    customer: zone.customer,
    createdDate: zone.createdDate,
    ...(zone.updatedDate !== undefined && { updatedDate: zone.updatedDate }),
    managed: zone.managed,
    service: zone.service,
    ...(zone.template !== undefined && { template: zone.template }),
    ...(zone.link !== undefined && { link: zone.link }),
    ...(zone.master !== undefined && { master: zone.master }),
    dnssec: zone.dnssec,
    ...(zone.ns !== undefined && { ns: zone.ns }),
    hostMaster: zone.hostMaster,
    refresh: zone.refresh,
    retry: zone.retry,
    expire: zone.expire,
    ttl: zone.ttl,
    defaultRecords: defaultRecords(zone, config),
    records: servedRecords(zone).map((r) => renderRecord(r, zone.domainName)),
  };
  return view;
}

/** The ETag version of a zone's revision (Reply.version: `"r12.<hash>"`); a write's `If-Match` names it. */
export function zoneVersion(revision: number): string {
  return `r${revision}`;
}
