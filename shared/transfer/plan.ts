import { ValidationError, type Violation } from '../errors.ts';
import type { KeyData } from '../model/domain.ts';
import type { TransferPlan, ZonePlan } from '../model/transfer.ts';
import { premiumPaidUntil, type TemplateRecord, type ZoneHeader, type ZoneRecord, type ZoneRecordEntry } from '../model/zone.ts';
import type { TransferCandidate } from '../registry/gateway.ts';
import { addMonths, toWireTime } from '../time.ts';
import type { TransferBody } from './request.ts';

/**
 * What a transfer will change, decided before anything is written (the `plan` of a quote), and
 * how it is applied on completion. Pure functions: the use case reads, this decides.
 */

/** Spec 2.1: values replace, an empty list removes, omitted keeps. Same values count as kept. */
function listChange<T>(before: T[], requested: T[] | undefined, same: (a: T[], b: T[]) => boolean) {
  if (requested === undefined) return { change: 'kept' as const, after: before };
  if (requested.length === 0) return { change: before.length === 0 ? ('kept' as const) : ('removed' as const), after: [] };
  return { change: same(before, requested) ? ('kept' as const) : ('replaced' as const), after: requested };
}

const sortedJson = <T>(items: T[]) =>
  items
    .map((i) => JSON.stringify(i))
    .sort()
    .join('\n');
const sameNs = (a: string[], b: string[]) => sortedJson(a.map((n) => n.toLowerCase())) === sortedJson(b.map((n) => n.toLowerCase()));
const keyDataKey = (k: KeyData) => ({ protocol: k.protocol, flags: k.flags, algorithm: k.algorithm, publicKey: k.publicKey });
const sameKeys = (a: KeyData[], b: KeyData[]) => sortedJson(a.map(keyDataKey)) === sortedJson(b.map(keyDataKey));

/**
 * The zone part (spec 2.2). Without `zone`, the zone is left as it is. With it: an existing zone of
 * the caller's for the domain is turned into a managed zone, and every value given must match it
 * (400 otherwise); with none, a new managed zone is created (from the template, if given). A
 * `zone.id` (contract 3.1) must name the domain's zone: no other zone can be converted for it.
 */
export function planZone(request: TransferBody['zone'], existing: ZoneHeader | undefined): ZonePlan {
  if (request === undefined) {
    return existing
      ? { change: 'untouched', exists: true, service: existing.service, ...zoneValues(existing) }
      : { change: 'untouched', exists: false };
  }
  const service = request.service ?? 'BASIC';
  if (!existing) {
    if (request.id !== undefined) {
      const message = 'names no zone of yours for this domain, which has none; leave it out to create one';
      throw new ValidationError(`zone.id: ${message}`, [{ field: 'zone.id', message, value: request.id }]);
    }
    return {
      change: 'created',
      exists: false,
      service,
      ...(request.template !== undefined ? { template: request.template, link: request.link !== false } : {}),
      ...(request.master !== undefined ? { master: request.master } : {}),
      dnssec: request.dnssec ?? false,
    };
  }
  const violations: Violation[] = [];
  const mismatch = (field: string, given: unknown, actual: unknown) => {
    if (given !== undefined && given !== actual) {
      violations.push({
        field: `zone.${field}`,
        message: `does not match the existing zone of this domain (${actual === undefined ? 'not set' : String(actual)}); leave it empty or give that value`,
        ...(typeof given === 'string' || typeof given === 'boolean' ? { value: given } : {}),
      });
    }
  };
  if (request.id !== undefined && request.id !== existing.id) {
    violations.push({
      field: 'zone.id',
      message: `is not the zone of this domain (${existing.id}); leave it empty or give that id`,
      value: request.id,
    });
  }
  mismatch('service', request.service, existing.service);
  mismatch('template', request.template, existing.template);
  mismatch('link', request.link, existing.link);
  mismatch('master', request.master, existing.master);
  mismatch('dnssec', request.dnssec, existing.dnssec);
  if (violations.length > 0) throw new ValidationError('The zone values do not match the existing zone of this domain.', violations);
  return { change: existing.managed ? 'untouched' : 'converted', exists: true, service: existing.service, ...zoneValues(existing) };
}

function zoneValues(zone: ZoneHeader): Omit<ZonePlan, 'change' | 'exists' | 'service'> {
  return {
    ...(zone.template !== undefined ? { template: zone.template } : {}),
    ...(zone.link !== undefined ? { link: zone.link } : {}),
    ...(zone.master !== undefined ? { master: zone.master } : {}),
    dnssec: zone.dnssec,
  };
}

export interface PlanInput {
  body: TransferBody;
  candidate: TransferCandidate;
  periodMonths: number;
  privacyProtect: boolean;
  existingZone: ZoneHeader | undefined;
  designatedAgent: TransferPlan['designatedAgent'];
}

/** The whole plan of a transfer. */
export function planTransfer(input: PlanInput): TransferPlan {
  const { body, candidate } = input;
  const ns = listChange(candidate.ns, body.ns, sameNs);
  const dnssec = listChange(candidate.keyData, body.keyData, sameKeys);
  return {
    periodMonths: input.periodMonths,
    // A registry that does not tell the current expiry: absent from the plan, not invented.
    ...(candidate.expiryDate !== undefined
      ? { expiry: { before: candidate.expiryDate, after: toWireTime(addMonths(new Date(candidate.expiryDate), input.periodMonths)) } }
      : {}),
    nameServers: { change: ns.change, before: candidate.ns, after: ns.after },
    dnssec: { change: dnssec.change, before: candidate.keyData, after: dnssec.after },
    zone: planZone(body.zone, input.existingZone),
    contacts: { registrant: body.registrant, contacts: body.contacts ?? [] },
    privacyProtect: input.privacyProtect,
    autoRenew: body.autoRenew ?? true,
    designatedAgent: input.designatedAgent,
  };
}

/**
 * Applies the plan's list changes to what the registry holds at completion: requested values
 * replace, an empty list removes, an omitted list keeps the registry's.
 */
export function appliedLists(plan: TransferPlan, registry: { ns: string[]; keyData: KeyData[] }): { ns: string[]; keyData: KeyData[] } {
  return {
    ns: plan.nameServers.change === 'kept' ? registry.ns : plan.nameServers.after,
    keyData: plan.dnssec.change === 'kept' ? registry.keyData : plan.dnssec.after,
  };
}

/** SOA defaults of a new zone without a template (RFC 1912 recommendations). */
export const defaultSoa = { refresh: 10800, retry: 3600, expire: 1209600, ttl: 3600 } as const;

const placeholder = /##DOMAIN##/g;

/**
 * A new managed zone for a domain (spec 2.2): from the template when one is given, linked unless
 * `link` is false. A linked zone keeps the template's `##DOMAIN##` placeholders (it follows the
 * template; the zone endpoint fills them in); an unlinked copy has them applied now.
 */
export function newZone(args: {
  id: number;
  domainName: string;
  customer: string;
  plan: ZonePlan;
  template: TemplateRecord | undefined;
  now: string;
}): ZoneRecord {
  const { plan, template, domainName } = args;
  const linked = template !== undefined && plan.link !== false;
  const apply = (text: string) => (linked ? text : text.replace(placeholder, domainName));
  const records: ZoneRecordEntry[] = (template?.records ?? []).map((r) => ({ ...r, name: apply(r.name), content: apply(r.content) }));
  return {
    id: args.id,
    domainName,
    customer: args.customer,
    managed: true,
    service: plan.service ?? 'BASIC',
    // A PREMIUM zone is paid for its first year by the request that asked for it (shared/dns/premium-charge.ts).
    ...(plan.service === 'PREMIUM' ? { paidUntil: premiumPaidUntil(args.now) } : {}),
    ...(template ? { template: template.name, link: linked } : {}),
    ...(plan.master !== undefined ? { master: plan.master } : {}),
    dnssec: plan.dnssec ?? false,
    hostMaster: template ? apply(template.hostMaster) : `hostmaster@${domainName}`,
    refresh: template?.refresh ?? defaultSoa.refresh,
    retry: template?.retry ?? defaultSoa.retry,
    expire: template?.expire ?? defaultSoa.expire,
    ttl: template?.ttl ?? defaultSoa.ttl,
    records,
    createdDate: args.now,
  };
}
