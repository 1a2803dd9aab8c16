import { getTemplate } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist, ValidationError, type Violation } from '../errors.ts';
import type { TemplateRecord, ZoneHeader, ZoneRecord, ZoneRecordEntry } from '../model/zone.ts';
import { type ZoneProblem, zoneRecordProblems, zoneSettingProblems } from '../model/zone-rules.ts';
import { canonicalContent } from '../model/zone-validation.ts';
import { replaceDomain } from './zone.ts';
import type { RecordRequest } from './zone-request.ts';

/**
 * What the zone API's create and update share: records as the clients send them turned into
 * stored records, a template's linked records, and the check of the zone as a whole before it is
 * written (every problem a 400 ValidationError naming the record: shared/model/zone-rules.ts).
 */

/** SOA timers of a new zone without a template (RFC 1912 recommendations), as a transfer's new zone has them. */
export const defaultSoa = { refresh: 10800, retry: 3600, expire: 1209600, ttl: 3600 } as const;

/** Types whose whole content is one host name: stored without a trailing dot, as every zone's records are. */
const hostContent: ReadonlySet<string> = new Set(['CNAME', 'NS', 'MX', 'ALIAS']);

const bare = (name: string) => (name.length > 1 && name.endsWith('.') ? name.slice(0, -1) : name);

/** A record as a client sends it, as stored: names and host names without the trailing dot, `prio` only for MX and SRV. */
export function toEntry(record: RecordRequest): ZoneRecordEntry {
  let content = record.type === 'TXT' ? record.content : canonicalContent(record.type, record.content);
  if (hostContent.has(record.type)) content = bare(content);
  if (record.type === 'SRV') {
    const words = content.split(/ +/);
    words[words.length - 1] = bare(words[words.length - 1] as string);
    content = words.join(' ');
  }
  const prio = record.type === 'MX' || record.type === 'SRV' ? record.prio : undefined;
  return { name: bare(record.name).toLowerCase(), type: record.type, content, ttl: record.ttl, ...(prio !== undefined ? { prio } : {}) };
}

/** The caller's template of that name, or 400 ObjectDoesNotExist naming it. */
export async function templateOf(customer: string, name: string): Promise<TemplateRecord> {
  const template = await getTemplate(customer, name);
  if (!template) throw new ObjectDoesNotExist('Template', name, 'body');
  return template;
}

/** How a record compares with a template's: `##DOMAIN##` filled in, names lower-case. */
function sameRecord(a: ZoneRecordEntry, b: ZoneRecordEntry, domainName: string): boolean {
  const fill = (r: ZoneRecordEntry) =>
    `${replaceDomain(r.name, domainName).toLowerCase()} ${r.type} ${replaceDomain(r.content, domainName)} ${r.ttl} ${r.prio ?? ''}`;
  return fill(a) === fill(b);
}

/**
 * The records of a zone linked to `template`, given the records a request sends: the template's
 * records as the template has them (`##DOMAIN##` kept: the zone follows the template), then the
 * request's own. Each of the template's records must be among the request's as the zone serves it
 * (a linked record is not editable until the link is broken with `link: false`); the request's
 * copies of them are not stored twice. `linking`: the zone is being linked now (its records are
 * its own so far), so the template's records need not be among them.
 */
export function linkedRecords(
  template: TemplateRecord,
  given: readonly ZoneRecordEntry[],
  domainName: string,
  linking = false,
): ZoneRecordEntry[] {
  const violations: Violation[] = [];
  const own = [...given];
  for (const linked of template.records) {
    const at = own.findIndex((r) => sameRecord(r, linked, domainName));
    if (at >= 0) own.splice(at, 1);
    else if (!linking) {
      violations.push({
        field: 'records',
        message: `${linked.type} ${replaceDomain(linked.name, domainName)} (${replaceDomain(linked.content, domainName)}) is linked to template ${template.name}: send it unchanged, or break the link with link: false to edit it`,
      });
    }
  }
  if (violations.length > 0) throw new ValidationError('The zone is linked to its template; its records are not editable.', violations);
  return [...template.records, ...own];
}

/** The template's records copied into a zone that is not linked: `##DOMAIN##` applied. */
export function copiedRecords(records: readonly ZoneRecordEntry[], domainName: string): ZoneRecordEntry[] {
  return records.map((r) => ({ ...r, name: replaceDomain(r.name, domainName), content: replaceDomain(r.content, domainName) }));
}

/**
 * Refuses (400 ValidationError, every problem named) a zone a name server would refuse, or one out
 * of the service's bounds. `records: false` checks the settings only (records already checked under
 * the same rules).
 */
export function checkZone(zone: ZoneRecord, records = true): void {
  const problems: ZoneProblem[] = [
    ...zoneSettingProblems(zone),
    ...(records ? zoneRecordProblems(zone.domainName, zone.service, zone.records, zone.dcvRecords ?? []) : []),
  ];
  if (problems.length > 0) {
    throw new ValidationError(
      `The zone ${zone.domainName} cannot be served as sent: ${problems[0]?.field} ${problems[0]?.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}.`,
      problems,
    );
  }
}

/** The SOA serial a change made `at` serves: the second of the change, or one past the serial served now. */
export function nextSerial(previous: Pick<ZoneHeader, 'serial' | 'createdDate' | 'updatedDate'> | undefined, at: string): number {
  const second = Math.floor(Date.parse(at) / 1000);
  if (!previous) return second;
  const served = Math.max(previous.serial ?? 0, Math.floor(Date.parse(previous.updatedDate ?? previous.createdDate) / 1000));
  return Math.max(second, served + 1);
}
