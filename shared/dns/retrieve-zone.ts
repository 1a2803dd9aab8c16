import { type CommitWith, commitNothing, itemsOf } from '../db/repositories/commit-with.ts';
import { putNotification } from '../db/repositories/notifications.ts';
import { allocateProcessId } from '../db/repositories/processes.ts';
import { replaceZoneRecord } from '../db/repositories/zone-writes.ts';
import { getZoneHeadById, withRecords } from '../db/repositories/zones.ts';
import { AppError, ObjectDoesNotExist, ObjectStatusProhibitsOperation, ProviderUnavailable } from '../errors.ts';
import { logger } from '../logger.ts';
import { zoneRetrieveFailed } from '../model/notification.ts';
import type { recordTypes, ZoneRecord, ZoneRecordEntry } from '../model/zone.ts';
import { serviceBounds } from '../model/zone-rules.ts';
import { zoneMasterAllowed } from '../schemas/address.ts';
import { now as clock, toWireTime } from '../time.ts';
import { TransferFailed, type TransferredRecord, transferZone } from './axfr.ts';
import { checkZone, nextSerial, toEntry } from './zone-edit.ts';

/**
 * `POST /v2/dns/zones/{id}/retrieve` (the PHP client's dnsZones->retrieve, the TypeScript client's
 * dnsZone.retrieve): the zone of the caller that names a hidden master (`master`) is transferred
 * from it by AXFR over TCP, and its records are replaced by what the master serves, in one
 * transaction with the serial raised, so DNS serves them within a second like any update.
 *
 * - Ownership first: another customer's zone answers like a missing one before any network work.
 * - The master must be a public unicast address (the rule of every address a customer gives);
 *   `ZONE_MASTER_ALLOW_LOOPBACK=true` (local trials and tests only) also takes 127.0.0.1, and
 *   `ZONE_MASTER_PORT` (default 53) is the port asked.
 * - Bounded: the zone service's record count (plus the SOA and apex NS the service replaces), 16 MiB
 *   read, 5 s for the whole transfer (half the function's 10 s, so the write and the notification fit).
 * - What the service serves itself is not taken: the SOA, the apex NS and the DNSSEC records
 *   (RRSIG, NSEC, NSEC3, NSEC3PARAM, DNSKEY, CDS, CDNSKEY); the zone's own `dnssec` decides signing.
 *   Every other record is checked as an update's records are.
 * - A failure (refused, unreachable, timeout, not authoritative, too big, records the service cannot
 *   hold) is a 400 ObjectStatusProhibitsOperation (a ValidationError for refused records) and writes
 *   the notification `DnsZoneRetrieveFailedEvent`; the zone keeps its records.
 * - `Idempotency-Key`: the answer commits with the records (a replay transfers nothing).
 */

/** Bounds of one transfer: bytes read and the time it takes (records: the service's). */
export const retrieveLimits = { maxBytes: 16 * 1024 * 1024, timeoutMs: 5_000 } as const;

const maxAttempts = 5;

/** Record types a transfer carries that the service serves itself, for a signed zone from its own keys. */
const servedByService = new Set(['SOA', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'DNSKEY', 'CDS', 'CDNSKEY']);

function masterPort(): number {
  const port = Number(process.env.ZONE_MASTER_PORT ?? 53);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : 53;
}

const bare = (name: string) => name.replace(/\.$/, '');
const quoted = (text: string) => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
const hex = (data: unknown) => (Buffer.isBuffer(data) ? data.toString('hex') : String(data)).toLowerCase();

/** A transferred record as the content an update takes, or a string saying why the service cannot take it. */
function contentOf(record: TransferredRecord): { type: (typeof recordTypes)[number]; content: string; prio?: number } | string {
  const d = record.data as Record<string, unknown>;
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return { type: record.type, content: String(record.data) };
    case 'CNAME':
    case 'NS':
      return { type: record.type, content: bare(String(record.data)) };
    case 'MX':
      return { type: 'MX', content: bare(String(d.exchange)), prio: Number(d.preference) };
    case 'SRV':
      return { type: 'SRV', content: `${d.weight} ${d.port} ${bare(String(d.target))}`, prio: Number(d.priority) };
    case 'TXT': {
      const strings = Array.isArray(record.data) ? record.data : [record.data];
      return { type: 'TXT', content: strings.map((s) => (Buffer.isBuffer(s) ? s.toString('utf8') : String(s))).join('') };
    }
    case 'CAA':
      return { type: 'CAA', content: `${d.flags ?? 0} ${d.tag} ${quoted(String(d.value))}` };
    case 'DS':
      return { type: 'DS', content: `${d.keyTag} ${d.algorithm} ${d.digestType} ${hex(d.digest)}` };
    case 'SSHFP':
      return { type: 'SSHFP', content: `${d.algorithm} ${d.hash} ${hex(d.fingerprint)}` };
    case 'TLSA':
      return { type: 'TLSA', content: `${d.usage} ${d.selector} ${d.matchingType} ${hex(d.certificate)}` };
    case 'NAPTR':
      return {
        type: 'NAPTR',
        content: `${d.order} ${d.preference} ${quoted(String(d.flags))} ${quoted(String(d.services))} ${quoted(String(d.regexp))} ${bare(String(d.replacement)) || '.'}`,
      };
    case 'HINFO':
      return { type: 'HINFO', content: `${quoted(String(d.cpu))} ${quoted(String(d.os))}` };
    default:
      return `${record.type} ${record.name}: the service does not take ${record.type} records from a transfer`;
  }
}

/** The transferred records the zone takes (what the service serves itself left out). */
export function retrievedRecords(domainName: string, transferred: readonly TransferredRecord[]): ZoneRecordEntry[] {
  const records: ZoneRecordEntry[] = [];
  const refused: string[] = [];
  for (const record of transferred) {
    if (servedByService.has(record.type)) continue;
    if (record.type === 'NS' && record.name === domainName) continue;
    const content = contentOf(record);
    if (typeof content === 'string') {
      refused.push(content);
      continue;
    }
    records.push(toEntry({ name: record.name, ttl: record.ttl, ...content }));
  }
  if (refused.length > 0) {
    throw new ObjectStatusProhibitsOperation(
      `The master's zone holds records the service does not serve: ${refused.slice(0, 3).join('; ')}${refused.length > 3 ? ` (and ${refused.length - 3} more)` : ''}.`,
    );
  }
  return records;
}

/** Writes the failure's notification; a failure to write it is logged, never hides the refusal. */
async function notifyFailure(zone: { id: number; customer: string; domainName: string }, master: string, reason: string): Promise<void> {
  try {
    const number = await allocateProcessId();
    await putNotification(zoneRetrieveFailed(zone, master, number, reason, toWireTime(clock())));
  } catch (error) {
    logger.error('the notification of a failed zone retrieve was not written', { domainName: zone.domainName, error: error as Error });
  }
}

export async function retrieveZone(
  customer: string,
  id: number,
  commitWith: CommitWith<null> = commitNothing,
  deadline?: number,
): Promise<null> {
  const head = await getZoneHeadById(customer, id);
  if (!head) throw new ObjectDoesNotExist('Zone', String(id));
  const { domainName, master } = head.zone;
  if (master === undefined) {
    throw new ObjectStatusProhibitsOperation(`The zone ${domainName} has no master to retrieve it from; set master with an update first.`);
  }
  const subject = { id, customer, domainName };
  if (!zoneMasterAllowed(master)) {
    const reason = `the master ${master} is not a public unicast address`;
    await notifyFailure(subject, master, reason);
    throw new ObjectStatusProhibitsOperation(`The zone ${domainName} cannot be retrieved: ${reason}.`);
  }
  const bounds = serviceBounds[head.zone.service];
  let records: ZoneRecordEntry[];
  try {
    const transferred = await transferZone(master, masterPort(), domainName, {
      // The records the service takes, plus the SOA twice and an apex NS set it replaces.
      maxRecords: bounds.maxRecords + 2 + 13,
      ...retrieveLimits,
    });
    records = retrievedRecords(domainName, transferred);
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const current = attempt === 0 ? head : await getZoneHeadById(customer, id);
      if (!current) throw new ObjectDoesNotExist('Zone', String(id));
      const zone = await withRecords(current);
      const at = toWireTime(clock());
      // What the master serves becomes the zone's own records: a template's link is broken.
      const next: ZoneRecord = {
        ...zone,
        ...(zone.template !== undefined ? { link: false } : {}),
        records,
        updatedDate: at,
        serial: nextSerial(zone, at),
      };
      checkZone(next);
      if (!(await replaceZoneRecord(next, current, itemsOf(commitWith(null)), undefined, deadline))) return null;
    }
  } catch (error) {
    const reason = error instanceof TransferFailed ? error.message : error instanceof AppError && error.expose ? error.message : undefined;
    if (reason === undefined) throw error;
    await notifyFailure(subject, master, reason);
    if (error instanceof TransferFailed) {
      throw new ObjectStatusProhibitsOperation(
        `The zone ${domainName} could not be retrieved from its master ${master}: ${error.message}.`,
      );
    }
    throw error;
  }
  throw new ProviderUnavailable('The zone kept changing while it was retrieved; retry.');
}
