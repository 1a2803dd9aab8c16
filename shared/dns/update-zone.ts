import { type CommitWith, itemsOf } from '../db/repositories/commit-with.ts';
import { getDomainOf } from '../db/repositories/domains.ts';
import { replaceZoneRecord } from '../db/repositories/zone-writes.ts';
import { getOwnZoneHead, getZoneHeadById, withRecords, type ZoneHead } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist, ObjectStatusProhibitsOperation, PreconditionFailed, ProviderUnavailable, ValidationError } from '../errors.ts';
import { premiumPaidUntil, type TemplateRecord, type ZoneRecord, type ZoneRecordEntry } from '../model/zone.ts';
import { now as clock, toWireTime } from '../time.ts';
import { becomesPremium, chargeZoneWrite, quoteZoneWrite, type ZoneCaller, type ZoneWriteOutcome } from './premium-charge.ts';
import { renderZone, zoneVersion } from './zone.ts';
import { checkZone, copiedRecords, linkedRecords, nextSerial, templateOf, toEntry } from './zone-edit.ts';
import type { UpdateZoneCommand } from './zone-request.ts';
import type { VersionedZone } from './zone-view.ts';

/**
 * Changes a zone of the caller (`POST /v2/dns/zones/{id}/update`, and for a domain's zone
 * `POST /v2/domains/{domainName}/zone/update`): what the request gives replaces what the zone has,
 * what it leaves out stays; `records` is the zone's whole record set (as the real API has it).
 *
 * - **No lost edit.** With `If-Match` (the ETag of a read of the zone, `"r<revision>.<hash>"`), the
 *   write happens only over that revision: another write in between answers 412 PreconditionFailed,
 *   never a silent overwrite. Without it, the last write wins (the change is applied over the zone
 *   as it is when it is written).
 * - **One transaction.** The new records are staged as a generation no header names, then the
 *   header is switched to them under the revision it was read with, in one conditional write with
 *   the Idempotency-Key's answer: zone and records change together or not at all.
 * - **The SOA serial goes up** on every change (nextSerial: at least one past the serial served).
 * - **Linked records.** While the zone is linked to a template, the template's records must come
 *   back unchanged (linkedRecords); `link: false` breaks the link, and they become the zone's own.
 * - The DCV records the service added stay (they are the header's `dcvRecords`), and the ACME
 *   challenge records of open orders stay at the DNS provider (the sync never deletes them).
 * - **PREMIUM is charged** when the update moves the zone from BASIC to PREMIUM (`dns_premium`,
 *   premium-charge.ts), in the transaction of the update; `quoteOnly` answers the quote and writes
 *   nothing.
 */

/** Which zone: by id (`/v2/dns/zones/{id}`) or by the domain's name (`/v2/domains/{domainName}/zone`). */
export type ZoneTarget = { id: number } | { domainName: string };

/** How often a write without If-Match is tried again over a zone that changed meanwhile. */
const maxAttempts = 5;

async function findZone(customer: string, target: ZoneTarget): Promise<ZoneHead> {
  if ('id' in target) {
    const head = await getZoneHeadById(customer, target.id);
    if (!head) throw new ObjectDoesNotExist('Zone', String(target.id));
    return head;
  }
  // Ownership before cost: another customer's domain costs what a missing one costs (one owner-filtered Query).
  if (!(await getDomainOf(customer, target.domainName))) throw new ObjectDoesNotExist('Domain', target.domainName);
  const head = await getOwnZoneHead(customer, target.domainName);
  if (!head) throw new ObjectDoesNotExist('Zone', target.domainName);
  return head;
}

/** Whether the record rules would judge `next`'s records as they judged `current`'s: the same records, service and DCV records. */
function sameRecordRules(current: ZoneRecord, next: ZoneRecord): boolean {
  if (current.service !== next.service || current.domainName !== next.domainName) return false;
  if (JSON.stringify(current.dcvRecords ?? []) !== JSON.stringify(next.dcvRecords ?? [])) return false;
  return current.records === next.records;
}

/** The zone with the request applied (not yet checked). */
function applied(current: ZoneRecord, command: UpdateZoneCommand, template: TemplateRecord | undefined, at: string): ZoneRecord {
  const domainName = current.domainName;
  const templateName = command.template ?? current.template;
  const link = templateName === undefined ? undefined : (command.link ?? (command.template !== undefined ? true : (current.link ?? false)));
  const given = command.records?.map(toEntry);
  const wasLinked = current.link === true && current.template !== undefined;
  let records: ZoneRecordEntry[];
  if (template && link) {
    // Linked: the template's records as the template has them, the zone's own after them.
    const sent = given ?? (wasLinked && current.template === template.name ? copiedRecords(current.records, domainName) : current.records);
    records = linkedRecords(template, sent, domainName, !given && !(wasLinked && current.template === template.name));
  } else if (given) records = given;
  else records = wasLinked ? copiedRecords(current.records, domainName) : current.records;
  const { master: _m, ns: _n, template: _t, link: _l, paidUntil: _p, ...rest } = current;
  const master = command.master ?? current.master;
  const ns = command.ns ?? current.ns;
  const service = command.service ?? current.service;
  // A zone that stays PREMIUM keeps its paid year; one made PREMIUM is paid for a year from now (its
  // charge is this update's); a BASIC zone has none (a move back to BASIC ends the paid year, unrefunded).
  const paidUntil = service !== 'PREMIUM' ? undefined : current.service === 'PREMIUM' ? current.paidUntil : premiumPaidUntil(at);
  return {
    ...rest,
    ...(paidUntil !== undefined ? { paidUntil } : {}),
    ...(templateName !== undefined ? { template: templateName, link: link ?? false } : {}),
    ...(master !== undefined ? { master } : {}),
    ...(ns !== undefined && ns.length > 0 ? { ns } : {}),
    service,
    dnssec: command.dnssec ?? current.dnssec,
    hostMaster: command.hostMaster ?? current.hostMaster,
    refresh: command.refresh ?? current.refresh,
    retry: command.retry ?? current.retry,
    expire: command.expire ?? current.expire,
    ttl: command.ttl ?? current.ttl,
    records,
    updatedDate: at,
    serial: nextSerial(current, at),
  };
}

export async function updateZone(
  who: ZoneCaller,
  target: ZoneTarget,
  command: UpdateZoneCommand,
  ifMatch: readonly string[] | undefined,
  commitWith: CommitWith<VersionedZone>,
  quoteOnly = false,
  deadline?: number,
): Promise<ZoneWriteOutcome> {
  const customer = who.customer;
  let processId: number | undefined;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const head = await findZone(customer, target);
    const current = await withRecords(head);
    if (ifMatch !== undefined && !ifMatch.includes('*') && !ifMatch.includes(zoneVersion(head.revision))) {
      throw new PreconditionFailed(
        `The zone ${current.domainName} changed since it was read (it is at revision ${head.revision} now); read it again and apply the change to it.`,
      );
    }
    if (command.name !== undefined && command.name !== current.domainName) {
      throw new ValidationError(`A zone's name cannot change: this one is ${current.domainName}.`, [
        { field: 'name', message: `must be ${current.domainName} (or left out)`, value: command.name },
      ]);
    }
    const templateName = command.template ?? current.template;
    const template = templateName === undefined ? undefined : await templateOf(customer, templateName);
    const now = clock();
    const next = applied(current, command, template, toWireTime(now));
    if (!next.dnssec && current.keyRollover?.stage === 'publish') {
      throw new ObjectStatusProhibitsOperation(
        `A key rollover of the zone ${current.domainName} waits for its DS (process ${current.keyRollover.processId}): acknowledge it before DNSSEC is switched off.`,
      );
    }
    // The records as the zone has them, under the same service and DCV records, were checked when
    // they were written: a change of settings only checks the settings (10,000 records spared).
    checkZone(next, !sameRecordRules(current, next));
    const quoted = await quoteZoneWrite(customer, 'UpdateDnsZoneCommand', becomesPremium(current, next), current.domainName, now);
    if (quoteOnly) return { quote: quoted.body };
    const charge = await chargeZoneWrite(quoted, command.billables, who, next, 'update', now, processId);
    processId = charge?.processId;
    const answer: VersionedZone = {
      view: renderZone(next),
      revision: head.revision + 1,
      ...(charge ? { processId: charge.processId } : {}),
    };
    const refused = await replaceZoneRecord(
      next,
      head,
      [...(charge?.items ?? []), ...itemsOf(commitWith(answer))],
      current.records,
      deadline,
    );
    if (!refused) return answer;
    if (ifMatch !== undefined) {
      throw new PreconditionFailed(
        `The zone ${current.domainName} changed while this change was written; read it again and apply the change to it.`,
      );
    }
  }
  throw new ProviderUnavailable('The zone kept changing while this change was written; retry.');
}
