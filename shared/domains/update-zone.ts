import { nextId } from '../db/repositories/counters.ts';
import type { DomainZoneWrite } from '../db/repositories/zone-writes.ts';
import { getTemplate, withRecords, type ZoneHead } from '../db/repositories/zones.ts';
import { checkZone, copiedRecords, linkedRecords, nextSerial, templateOf } from '../dns/zone-edit.ts';
import { ObjectStatusProhibitsOperation, ValidationError, type Violation } from '../errors.ts';
import type { ZonePlan } from '../model/transfer.ts';
import type { TemplateRecord, ZoneHeader, ZoneRecord, ZoneRecordEntry } from '../model/zone.ts';
import { zoneEffectOf } from '../transfer/lifecycle.ts';
import { planZone } from '../transfer/plan.ts';
import type { UpdateBody } from './update-request.ts';

/**
 * The `zone` of a domain update (docs/domains.md, "The managed zone"): what it does to the
 * domain's managed zone, decided from the name's zone as read, before anything is written.
 *
 * - A domain without a managed zone gets one as a transfer's or a registration's `zone` gives it
 *   (shared/transfer/plan.ts, planZone, and lifecycle.ts, zoneEffectOf): the caller's plain zone
 *   of the name made managed (the values sent must match it), else a new zone (from the caller's
 *   template, linked unless `link` is false).
 * - A domain with a managed zone: the zone as read sent back changes nothing (the SDKs' update
 *   writes back the zone it read); a different `template`, or `link`, changes the link: linked to
 *   the template named (its records first, the old template's records dropped, the zone's own
 *   kept), or the link broken (the template's records become the zone's own, `##DOMAIN##` filled
 *   in). `service`, `master` and `dnssec` are changed with the zone API, not here (400 naming them).
 * - `{}` (the TS SDK's `zone: {}`; `null` here) removes the managed zone: it leaves the table,
 *   and DNS through the zone sync.
 *
 * Another customer's zone or template is never touched and answers as missing (a `zone.id` of
 * theirs is "no zone of yours", their template a 400 ObjectDoesNotExist); a name whose zone is
 * another customer's cannot be given one.
 */

/** What the update does to the zone: created, converted, replaced (re-linked) or removed. */
export type ZoneDecision =
  | { kind: 'create'; plan: ZonePlan; template?: TemplateRecord }
  | { kind: 'convert'; zone: ZoneHeader }
  | { kind: 'replace'; zone: ZoneRecord; previous: ZoneHead }
  | { kind: 'remove'; previous: ZoneHead };

const fail = (violations: Violation[]) => {
  throw new ValidationError(`The zone cannot be changed as sent: ${violations[0]?.field} ${violations[0]?.message}.`, violations);
};

/** The zone's records without one copy of each of the template's (records a link brought), compared as stored. */
function withoutTemplateRecords(records: readonly ZoneRecordEntry[], template: TemplateRecord): ZoneRecordEntry[] {
  const key = (r: ZoneRecordEntry) => JSON.stringify([r.name, r.type, r.content, r.ttl, r.prio ?? null]);
  const brought = new Map<string, number>();
  for (const r of template.records) brought.set(key(r), (brought.get(key(r)) ?? 0) + 1);
  return records.filter((r) => {
    const left = brought.get(key(r)) ?? 0;
    if (left === 0) return true;
    brought.set(key(r), left - 1);
    return false;
  });
}

/** The managed zone with the link `template`/`link` (undefined when that is the link it has). */
async function relinked(
  customer: string,
  head: ZoneHead,
  requested: NonNullable<UpdateBody['zone']>,
  at: string,
): Promise<ZoneRecord | undefined> {
  const zone = head.zone;
  const violations: Violation[] = [];
  if (requested.id !== undefined && requested.id !== zone.id) {
    violations.push({
      field: 'zone.id',
      message: `is not the zone of this domain (${zone.id}); leave it empty or give that id`,
      value: requested.id,
    });
  }
  for (const field of ['service', 'master', 'dnssec'] as const) {
    const given = requested[field];
    if (given !== undefined && given !== zone[field]) {
      violations.push({
        field: `zone.${field}`,
        message: `differs from the managed zone (${zone[field] ?? 'not set'}); change it with POST /v2/domains/${zone.domainName}/zone/update`,
        value: given,
      });
    }
  }
  if (violations.length > 0) fail(violations);
  const templateName = requested.template ?? zone.template;
  const otherTemplate = requested.template !== undefined && requested.template !== zone.template;
  const link = requested.link ?? (otherTemplate ? true : (zone.link ?? false));
  if (templateName === undefined) {
    if (requested.link === true) fail([{ field: 'zone.link', message: 'the zone has no template to link to; name one in zone.template' }]);
    return undefined;
  }
  if (!otherTemplate && link === (zone.link ?? false)) return undefined;
  const current = await withRecords(head);
  const wasLinked = current.link === true && current.template !== undefined;
  const domainName = current.domainName;
  let own: ZoneRecordEntry[] = current.records;
  if (wasLinked && otherTemplate) {
    // The old link's records go with it; the zone's own stay.
    const old = await getTemplate(customer, current.template as string);
    if (old) own = withoutTemplateRecords(current.records, old);
  } else if (wasLinked && !link) own = copiedRecords(current.records, domainName);
  let records = own;
  if (link || otherTemplate) {
    const template = await templateOf(customer, templateName);
    const withTemplate = linkedRecords(template, own, domainName, true);
    records = link ? withTemplate : copiedRecords(withTemplate, domainName);
  }
  const next: ZoneRecord = { ...current, template: templateName, link, records, updatedDate: at, serial: nextSerial(current, at) };
  checkZone(next);
  return next;
}

/**
 * What the update's `zone` does, given the name's zone as read (`head`, any account's). Undefined:
 * nothing (no `zone`, the managed zone sent back as it is, or `{}` with no managed zone to remove).
 * Reads templates and records, writes nothing: a quote decides the same.
 */
export async function decideZone(
  customer: string,
  domainName: string,
  requested: UpdateBody['zone'],
  head: ZoneHead | undefined,
  at: string,
): Promise<ZoneDecision | undefined> {
  if (requested === undefined) return undefined;
  const own = head?.zone.customer === customer ? head : undefined;
  if (requested === null) return own?.zone.managed ? { kind: 'remove', previous: own } : undefined;
  if (own?.zone.managed) {
    const zone = await relinked(customer, own, requested, at);
    return zone ? { kind: 'replace', zone, previous: own } : undefined;
  }
  // No managed zone: as a transfer's zone (a zone.id names the caller's zone of the name, or none).
  const plan = planZone(requested, own?.zone);
  if (head && !own)
    throw new ObjectStatusProhibitsOperation(`A zone for ${domainName} cannot be provisioned: the name's zone is managed elsewhere.`);
  if (plan.change === 'converted' && own) return { kind: 'convert', zone: own.zone };
  const template = plan.template !== undefined ? await templateOf(customer, plan.template) : undefined;
  return { kind: 'create', plan, ...(template ? { template } : {}) };
}

/**
 * The write of a decision (a new zone's id taken now), the name servers the zone serves set along
 * when the update changes them (`ns`), and the managed zone the domain has after it.
 */
export async function zoneWriteOf(
  decision: ZoneDecision | undefined,
  context: { domainName: string; customer: string; at: string; head: ZoneHead | undefined; ns?: readonly string[] },
): Promise<{ write?: DomainZoneWrite; zone?: ZoneHeader }> {
  const { domainName, customer, at, head, ns } = context;
  const withNs = <T extends object>(zone: T): T => (ns ? { ...zone, ns: [...ns] } : zone);
  switch (decision?.kind) {
    case undefined: {
      const managed = head?.zone.customer === customer && head.zone.managed ? head.zone : undefined;
      if (!managed) return {};
      return { zone: withNs(managed), ...(ns ? { write: { kind: 'ns', domainName, customer, ns } } : {}) };
    }
    case 'remove':
      return { write: { kind: 'remove', previous: decision.previous } };
    case 'convert':
      return {
        write: { kind: 'convert', zone: decision.zone, ...(ns ? { ns } : {}) },
        zone: withNs({ ...decision.zone, managed: true, updatedDate: at }),
      };
    case 'replace': {
      const { records: _, ...zone } = withNs(decision.zone);
      return { write: { kind: 'replace', zone: withNs(decision.zone), previous: decision.previous }, zone };
    }
    case 'create': {
      const effect = zoneEffectOf({ zone: decision.plan }, domainName, customer, at, undefined, decision.template, await nextId('zone'));
      if (!effect?.create) throw new Error(`No new zone was planned for ${domainName}`);
      const created = withNs(effect.record);
      const { records: _, ...zone } = created;
      return { write: { kind: 'create', zone: created }, zone };
    }
  }
}
