import * as v from 'valibot';
import { DomainName, Handle, WireTime } from '../schemas/primitives.ts';
import { DomainContact, type DomainRecord, KeyData } from './domain.ts';
import type { ProcessRecord } from './process.ts';
import { type ZoneEffect, ZonePlan } from './transfer.ts';

/**
 * A domain registration (POST /v2/domains/{domainName}): the process's `details` while the registry
 * works on it and after, the name's pending state while it waits, and what a registry answer changes.
 */

export const registrationStatuses = ['pending', 'completed', 'failed'] as const;
export const RegistrationStatus = v.picklist(registrationStatuses);
export type RegistrationStatus = v.InferOutput<typeof RegistrationStatus>;

/** What the registration will put into the account, decided before anything is written (kept on the process). */
export const RegistrationPlan = v.object({
  periodMonths: v.number(),
  registrant: Handle,
  contacts: v.array(DomainContact),
  ns: v.array(v.string()),
  keyData: v.array(KeyData),
  privacyProtect: v.boolean(),
  autoRenew: v.boolean(),
  premium: v.boolean(),
  languageCode: v.optional(v.string()),
  zone: ZonePlan,
});
export type RegistrationPlan = v.InferOutput<typeof RegistrationPlan>;

/** A registration's state on its process (`details`). */
export const RegistrationDetails = v.object({
  domainName: DomainName,
  registry: v.string(),
  extension: v.string(),
  status: RegistrationStatus,
  /** Bumped on every move (the notification slot of the move). */
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  requestedDate: WireTime,
  plan: RegistrationPlan,
  actionDate: v.optional(WireTime),
  expiryDate: v.optional(WireTime),
  reason: v.optional(v.string()),
  registryReference: v.optional(v.string()),
  zoneId: v.optional(v.number()),
  refunded: v.optional(v.boolean()),
});
export type RegistrationDetails = v.InferOutput<typeof RegistrationDetails>;

/** The name's pending registration (one per name), due again at `actionDate`. */
export const RegistrationLock = v.object({
  domainName: DomainName,
  customer: Handle,
  processId: v.number(),
  version: v.number(),
  requestedDate: WireTime,
  actionDate: WireTime,
});
export type RegistrationLock = v.InferOutput<typeof RegistrationLock>;

/** The process type and action of a registration. */
export const registrationProcess = { type: 'domain', action: 'create' } as const;

export function isRegistrationProcess(process: Pick<ProcessRecord, 'type' | 'action'>): boolean {
  return process.type === registrationProcess.type && process.action === registrationProcess.action;
}

export function registrationDetailsOf(process: ProcessRecord): RegistrationDetails {
  return v.parse(RegistrationDetails, process.details);
}

/** What a registry answer changes: the process; while pending, the next pending state; on completion the domain and its zone. */
export interface RegistrationMove {
  process: ProcessRecord;
  lock?: RegistrationLock;
  domain?: DomainRecord;
  zone?: ZoneEffect;
}
