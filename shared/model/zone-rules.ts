import * as v from 'valibot';
import type { ZoneHeader, ZoneRecordEntry } from './zone.ts';
import { ValidZoneRecordEntry } from './zone-validation.ts';

/**
 * What the zone API accepts of a zone as a whole, on top of each record's own check
 * (zone-validation.ts): the rules a name server applies to a zone (RFC 1034 3.6.2, RFC 2181
 * 10.1: a CNAME stands alone; RFC 4035 2.4: DS lives in the parent), the service's bounds (TTLs,
 * records per zone) and the zone's own name (every record inside it). A zone PowerDNS or Route 53
 * would refuse is refused here first, each problem naming the record (`records[3]`)
 * (test/dns-zones-validation.test.ts feeds the same zones to a real PowerDNS).
 */

export type ZoneService = ZoneHeader['service'];

/** The bounds of a DNS service: records per zone and the TTLs it serves (docs/zones-api.md). */
export interface ServiceBounds {
  maxRecords: number;
  minTtl: number;
  maxTtl: number;
}

export const serviceBounds: Record<ZoneService, ServiceBounds> = {
  BASIC: { maxRecords: 1_000, minTtl: 300, maxTtl: 604_800 },
  PREMIUM: { maxRecords: 10_000, minTtl: 60, maxTtl: 604_800 },
};

/** One problem of a zone: the field it is about (`records[3]`, `ttl`) and what is wrong. */
export interface ZoneProblem {
  field: string;
  message: string;
}

/** The zone's own name for `##DOMAIN##`, lower-case, no trailing dot. */
function expand(name: string, domainName: string): string {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  return bare.replace(/##domain##/gi, domainName).toLowerCase();
}

/** How a record reads in a problem: `CNAME www.example.com`. */
const label = (r: ZoneRecordEntry, domainName: string) => `${r.type} ${expand(r.name, domainName)}`;

/** The identity of a record's data, for "the same record twice": name, type, content as a name server compares it, prio. */
function identity(r: ZoneRecordEntry, domainName: string): string {
  const content = r.content
    .trim()
    .replace(/ +/g, ' ')
    .replace(/##domain##/gi, domainName);
  const folded = r.type === 'TXT' ? content : content.toLowerCase().replace(/\.$/, '');
  return `${expand(r.name, domainName)}\u0000${r.type}\u0000${folded}\u0000${r.prio ?? ''}`;
}

/**
 * The problems of a zone's records (empty: it may be written): each record by its type, inside the
 * zone and within the service's TTLs; no type the service serves itself at the apex (SOA) and no
 * DS there; a CNAME alone at its name and never at the apex (whose SOA and NS it would sit beside);
 * no record twice; at most the service's record count. `alongside` are records the zone serves
 * besides (its DCV records): a CNAME may not sit beside them either.
 */
export function zoneRecordProblems(
  domainName: string,
  service: ZoneService,
  records: readonly ZoneRecordEntry[],
  alongside: readonly ZoneRecordEntry[] = [],
): ZoneProblem[] {
  const bounds = serviceBounds[service];
  const problems: ZoneProblem[] = [];
  if (records.length > bounds.maxRecords) {
    problems.push({
      field: 'records',
      message: `a ${service} zone holds at most ${bounds.maxRecords} records; this one has ${records.length}`,
    });
    return problems;
  }
  const apex = domainName.toLowerCase();
  const seen = new Map<string, number>();
  const typesAt = new Map<string, Set<string>>();
  const cnames = new Map<string, number[]>();
  records.forEach((r, i) => {
    const field = `records[${i}]`;
    const parsed = v.safeParse(ValidZoneRecordEntry, r);
    if (!parsed.success) {
      problems.push({ field, message: `${label(r, domainName)}: ${parsed.issues[0].message}` });
      return;
    }
    const name = expand(r.name, domainName);
    if (name !== apex && !name.endsWith(`.${apex}`)) {
      problems.push({ field, message: `${label(r, domainName)}: name: must be ${apex} or a name below it` });
      return;
    }
    if (r.ttl < bounds.minTtl || r.ttl > bounds.maxTtl) {
      problems.push({
        field,
        message: `${label(r, domainName)}: ttl: a ${service} zone serves TTLs from ${bounds.minTtl} to ${bounds.maxTtl}`,
      });
    }
    if (r.type === 'SOA')
      problems.push({
        field,
        message: `${label(r, domainName)}: the zone's SOA is the service's (hostMaster, refresh, retry, expire, ttl set it)`,
      });
    if (r.type === 'DS' && name === apex)
      problems.push({ field, message: `${label(r, domainName)}: a DS record belongs in the parent zone, not at the apex` });
    if (r.type === 'CNAME' && name === apex)
      problems.push({ field, message: `${label(r, domainName)}: a CNAME cannot be at the apex, beside its SOA and NS records` });
    const id = identity(r, domainName);
    const first = seen.get(id);
    if (first !== undefined) problems.push({ field, message: `${label(r, domainName)}: the same record as records[${first}]` });
    else seen.set(id, i);
    const types = typesAt.get(name) ?? new Set<string>();
    types.add(r.type);
    typesAt.set(name, types);
    if (r.type === 'CNAME') cnames.set(name, [...(cnames.get(name) ?? []), i]);
  });
  for (const r of alongside) {
    const name = expand(r.name, domainName);
    typesAt.set(name, (typesAt.get(name) ?? new Set<string>()).add(r.type));
  }
  for (const [name, positions] of cnames) {
    const i = positions[0] as number;
    const other = [...(typesAt.get(name) ?? [])].filter((t) => t !== 'CNAME');
    if (positions.length > 1) {
      problems.push({
        field: `records[${positions[1]}]`,
        message: `CNAME ${name}: a name has at most one CNAME (another is records[${i}])`,
      });
    }
    if (other.length > 0) {
      problems.push({
        field: `records[${i}]`,
        message: `CNAME ${name}: a CNAME stands alone at its name, but ${name} also has ${other.join(', ')}`,
      });
    }
  }
  return problems;
}

/** The problems of the zone's own SOA settings against the service's bounds. */
export function zoneSettingProblems(zone: Pick<ZoneHeader, 'service' | 'ttl' | 'refresh' | 'retry' | 'expire'>): ZoneProblem[] {
  const bounds = serviceBounds[zone.service];
  const problems: ZoneProblem[] = [];
  if (zone.ttl < bounds.minTtl || zone.ttl > bounds.maxTtl) {
    problems.push({ field: 'ttl', message: `a ${zone.service} zone serves TTLs from ${bounds.minTtl} to ${bounds.maxTtl}` });
  }
  // RFC 1912 2.2: the secondary's timers in a sensible order.
  if (zone.retry > zone.refresh) problems.push({ field: 'retry', message: 'must not be more than refresh' });
  if (zone.expire < zone.refresh + zone.retry) problems.push({ field: 'expire', message: 'must be at least refresh plus retry' });
  return problems;
}
