import { randomBytes } from 'node:crypto';
import {
  claimRegistryDomain,
  getRegistryDomain,
  getRegistryDomainWithTransfer,
  putRegistryDomain,
  recordRegistryCancellation,
  recordRegistryFoaResend,
} from '../db/repositories/registry-domains.ts';
import { ObjectDoesNotExist, ObjectExists, ObjectStatusProhibitsOperation, ProviderUnavailable, ValidationError } from '../errors.ts';
import { eppStatus, type RegistryDomainRecord, type RegistryTransferRecord, transferBlockingStatuses } from '../model/registry-domain.ts';
import { isFinal, registrantInteractionStatuses } from '../model/transfer.ts';
import { addMonths, toWireTime } from '../time.ts';
import {
  type DomainLifecycleRequest,
  type RegistrationReference,
  type RegistrationRequest,
  type RegistrationState,
  type RegistryGateway,
  type RegistryTransferState,
  type TransferCandidate,
  type TransferReference,
  transferProhibited,
} from './gateway.ts';

/**
 * The sandbox registry (contract section 6): a deterministic registry driven by data. Each domain
 * it knows is one item (dataset section `registryDomains`) saying which registry runs it, its auth
 * code, its EPP statuses (locks), its premium price, its expiry, name servers and DNSSEC, and how a
 * transfer of it runs: a script of waiting stages, each lasting a number of seconds, then an
 * outcome. Where a transfer stands is a pure function of that script and the time since the
 * request, so the same question always gets the same answer and no network is needed.
 */

type RegistryCall =
  | 'prepareTransfer'
  | 'requestTransfer'
  | 'transferState'
  | 'cancelTransfer'
  | 'resendFoa'
  | 'prepareRegistration'
  | 'registerDomain'
  | 'registrationState'
  | 'renewDomain'
  | 'deleteDomain'
  | 'restoreDomain';

/** The record of a name this registry runs; an outage of `call` answers 503. */
function served(record: RegistryDomainRecord | undefined, domainName: string, registry: string, call: RegistryCall): RegistryDomainRecord {
  // A name held by another registry is as unknown to this one as a name nobody holds.
  if (!record || record.registry !== registry) throw new ObjectDoesNotExist('Domain', domainName, 'body');
  if (record.unavailable?.includes(call)) throw new ProviderUnavailable(`The registry ${registry} is unavailable; retry later.`, 30);
  return record;
}

async function known(domainName: string, registry: string, call: RegistryCall): Promise<RegistryDomainRecord> {
  return served(await getRegistryDomain(domainName), domainName, registry, call);
}

/** A name this registry runs and what it remembers of one transfer of it (one read). */
async function knownTransfer(
  reference: TransferReference,
  call: RegistryCall,
): Promise<{ record: RegistryDomainRecord; transfer?: RegistryTransferRecord }> {
  const { domain, transfer } = await getRegistryDomainWithTransfer(reference.domainName, reference.requestedDate);
  return { record: served(domain, reference.domainName, reference.registry, call), ...(transfer ? { transfer } : {}) };
}

/** Where a transfer stands at `at`, given what the registry remembers of it: a cancellation ends it from then on. */
function stateWith(record: RegistryDomainRecord, reference: TransferReference, transfer: RegistryTransferRecord | undefined, at: Date) {
  const cancelled = transfer?.cancelledDate;
  if (cancelled !== undefined && at.getTime() >= new Date(cancelled).getTime()) {
    return { status: 'cancelled' as const, endDate: cancelled, reason: 'The gaining registrar cancelled the transfer.' };
  }
  return scriptedState(record, reference, at);
}

/**
 * Where a transfer of `record` requested at `requestedDate` stands at `at`: the stage whose window
 * holds `at` (its end is the actionDate), or, after the last stage, the outcome.
 */
export function scriptedState(record: RegistryDomainRecord, reference: TransferReference, at: Date): RegistryTransferState {
  const start = new Date(reference.requestedDate).getTime();
  let end = start;
  for (const stage of record.transfer.stages) {
    end += stage.seconds * 1000;
    if (at.getTime() < end) return { status: stage.status, actionDate: toWireTime(end) };
  }
  const endDate = toWireTime(end);
  if (record.transfer.outcome !== 'completed') {
    return {
      status: record.transfer.outcome,
      endDate,
      reason: record.transfer.reason ?? `The registry answered '${record.transfer.outcome}'.`,
    };
  }
  return {
    status: 'completed',
    endDate,
    domain: {
      expiryDate: toWireTime(addMonths(new Date(record.expiryDate), reference.periodMonths)),
      ns: record.ns,
      keyData: record.keyData,
    },
  };
}

/** An auth code as the sandbox registry makes one: 16 characters of letters and digits. */
function newAuthcode(): string {
  return randomBytes(12).toString('base64').replace(/[+/]/g, 'x');
}

/** A name this registry runs for a registration: its record (absent: a name it never heard of, free), an outage answering 503. */
async function forRegistration(domainName: string, registry: string, call: RegistryCall): Promise<RegistryDomainRecord | undefined> {
  const record = await getRegistryDomain(domainName);
  // A name held by another registry is unknown to this one: free here, as a check answers.
  if (!record || record.registry !== registry) return undefined;
  if (record.unavailable?.includes(call)) throw new ProviderUnavailable(`The registry ${registry} is unavailable; retry later.`, 30);
  return record;
}

/** The registry's refusal of a reserved name. */
function reserved(domainName: string): ValidationError {
  return new ValidationError(`The registry refuses to register ${domainName}: the name is reserved.`, [
    { field: 'domainName', message: 'is reserved at its registry', value: domainName },
  ]);
}

/** Whether a registered record is this customer's earlier registration with the same period (a retry whose answer was lost). */
function heldFor(record: RegistryDomainRecord, request: { customer: string; periodMonths: number }): boolean {
  const by = record.registeredFor;
  return by !== undefined && by.customer === request.customer && by.periodMonths === request.periodMonths;
}

/** Where a registration made through this sandbox stands at `at`: pending until `pendingUntil`, then completed. */
function registrationStateOf(record: RegistryDomainRecord, at: Date): RegistrationState {
  const by = record.registeredFor;
  if (!by) throw new ObjectExists(`${record.domainName} is already registered.`);
  if (by.pendingUntil !== undefined && at.getTime() < new Date(by.pendingUntil).getTime()) {
    return { status: 'pending', actionDate: by.pendingUntil };
  }
  if (record.createFails !== undefined) return { status: 'failed', reason: record.createFails };
  return { status: 'completed', expiryDate: record.expiryDate, ...(record.authcode !== undefined ? { authcode: record.authcode } : {}) };
}

/** The refusal of a name someone holds. */
function taken(domainName: string): ObjectExists {
  return new ObjectExists(`${domainName} is already registered.`);
}

/** A registration of a name someone holds, unless it is the caller's own earlier one (then its record). */
function ownOrTaken(record: RegistryDomainRecord, request: RegistrationRequest | (RegistrationReference & { customer: string })) {
  if (record.registration === 'reserved') throw reserved(record.domainName);
  // Free: available, or a registration scripted to fail (the name stays free).
  if (record.registration === 'available' || record.createFails !== undefined) return undefined;
  if (heldFor(record, request)) return record;
  throw taken(record.domainName);
}

/**
 * The name as this registry holds it for a renewal, deletion or restore: its record, or, for a name
 * the service holds that the registry has no record of (registered before the sandbox kept one),
 * the service's copy as the registry of record would hold it. A name another registry runs is unknown.
 */
async function heldForLifecycle(request: DomainLifecycleRequest, call: RegistryCall): Promise<RegistryDomainRecord> {
  const held = await getRegistryDomain(request.domainName);
  if (held) return served(held, request.domainName, request.registry, call);
  return {
    domainName: request.domainName,
    registry: request.registry,
    statuses: request.current.status.map(eppStatus),
    expiryDate: request.currentExpiryDate,
    ns: request.current.ns,
    keyData: request.current.keyData,
    designatedAgentAllowed: true,
    transfer: { stages: [], outcome: 'completed' },
  };
}

const refusedBy = (domainName: string, what: string) =>
  new ObjectStatusProhibitsOperation(`The registry refuses to ${what} ${domainName}: its status prohibits it.`);

/** The sandbox implementation of the registry gateway. */
export const sandboxRegistry: RegistryGateway = {
  /**
   * A name is available unless the registry holds it (a record without `registration`) or it is
   * reserved; a premium name carries its prices. A name of another registry is unknown here: free.
   */
  async checkDomain({ domainName, registry, renewPrice }) {
    const record = await getRegistryDomain(domainName);
    if (!record || record.registry !== registry) return { available: true, premium: false };
    // Deleted: held until its redemption period ends, then free again.
    if (record.redemptionUntil !== undefined) {
      return Date.now() >= Date.parse(record.redemptionUntil)
        ? { available: true, premium: false }
        : { available: false, reason: 'registered', premium: false };
    }
    if (record.registration === 'reserved') return { available: false, reason: 'reserved' };
    const available = record.registration === 'available';
    const premium = record.premium;
    if (!premium) return available ? { available: true, premium: false } : { available: false, reason: 'registered', premium: false };
    return {
      available,
      ...(available ? {} : { reason: 'registered' }),
      premium: true,
      currency: premium.currency,
      price: premium.amount,
      ...(renewPrice && record.renewPremium !== undefined ? { renewPrice: record.renewPremium } : {}),
    };
  },

  /**
   * Applies a change to the name as the registry holds it. A name the service holds that this
   * registry has no record of (registered before the sandbox kept one) is recorded from the
   * service's copy first, as the registry of record would hold it.
   */
  async updateDomain(change) {
    const held = await getRegistryDomain(change.domainName);
    if (held && held.registry !== change.registry) throw new ObjectDoesNotExist('Domain', change.domainName, 'body');
    const record: RegistryDomainRecord = held ?? {
      domainName: change.domainName,
      registry: change.registry,
      statuses: change.current.status.map(eppStatus),
      expiryDate: change.current.expiryDate,
      ns: change.current.ns,
      keyData: change.current.keyData,
      designatedAgentAllowed: true,
      transfer: { stages: [], outcome: 'completed' },
    };
    if (record.statuses.includes('serverUpdateProhibited')) {
      throw new ObjectStatusProhibitsOperation(`The registry refuses to change ${change.domainName}: its status prohibits it.`);
    }
    const authcode = change.authcode === undefined ? undefined : change.authcode === '' ? newAuthcode() : change.authcode;
    await putRegistryDomain({
      ...record,
      ...(change.status ? { statuses: change.status.map(eppStatus) } : {}),
      ...(change.ns ? { ns: change.ns } : {}),
      ...(change.keyData ? { keyData: change.keyData } : {}),
      ...(authcode !== undefined ? { authcode } : {}),
    });
    return authcode !== undefined ? { authcode } : {};
  },

  async prepareTransfer({ domainName, registry, authcode }): Promise<TransferCandidate> {
    const record = await known(domainName, registry, 'prepareTransfer');
    const blocking = record.statuses.filter((s) => (transferBlockingStatuses as readonly string[]).includes(s));
    if (blocking.length > 0) throw transferProhibited(domainName);
    if (record.authcode !== undefined && authcode !== record.authcode) {
      throw new ValidationError('The auth code is not valid for this domain.', [
        { field: 'authcode', message: 'is not valid for this domain' },
      ]);
    }
    const first = record.transfer.stages[0]?.status;
    return {
      domainName,
      registry,
      expiryDate: record.expiryDate,
      ns: record.ns,
      keyData: record.keyData,
      ...(record.premium ? { premium: record.premium } : {}),
      designatedAgentAllowed: record.designatedAgentAllowed,
      registrantInteraction: first !== undefined && registrantInteractionStatuses.includes(first),
      ...(record.registrar !== undefined ? { registrar: record.registrar } : {}),
    };
  },

  async requestTransfer(reference) {
    const record = await known(reference.domainName, reference.registry, 'requestTransfer');
    return scriptedState(record, reference, new Date(reference.requestedDate));
  },

  async transferState(reference, at) {
    const { record, transfer } = await knownTransfer(reference, 'transferState');
    return stateWith(record, reference, transfer, at);
  },

  async cancelTransfer(reference, at) {
    const { record, transfer } = await knownTransfer(reference, 'cancelTransfer');
    const state = stateWith(record, reference, transfer, at);
    // Ended before the cancellation arrived (completed, rejected, failed), or already cancelled: as it stands.
    if (state.status !== 'cancelled' && !isFinal(state.status)) {
      const cancelledDate = await recordRegistryCancellation(reference.domainName, reference.requestedDate, toWireTime(at));
      return stateWith(
        record,
        reference,
        { ...transfer, domainName: reference.domainName, requestedDate: reference.requestedDate, cancelledDate },
        new Date(cancelledDate),
      );
    }
    return state;
  },

  async resendFoa(reference, at) {
    const { record, transfer } = await knownTransfer(reference, 'resendFoa');
    const state = stateWith(record, reference, transfer, at);
    const refused = new ObjectStatusProhibitsOperation(
      `The registry no longer waits for the FOA of the transfer of ${reference.domainName} (it is ${state.status}).`,
    );
    if (state.status !== 'pendingfoa') throw refused;
    if (!(await recordRegistryFoaResend(reference.domainName, reference.requestedDate, toWireTime(at)))) throw refused;
  },

  /**
   * A free name: no record, or one `available` (with its premium price). Reserved names are
   * refused, registered ones are ObjectExists, unless the record is the caller's own earlier
   * registration with the same period (`held`).
   */
  async prepareRegistration(request) {
    const { domainName, registry } = request;
    const record = await forRegistration(domainName, registry, 'prepareRegistration');
    if (!record) return { domainName, registry };
    const premium = record.premium ? { premium: record.premium } : {};
    if (ownOrTaken(record, request)) return { domainName, registry, held: true, ...premium };
    return { domainName, registry, ...premium };
  },

  /**
   * Records the name as registered (a conditional write: of two requests for one name, one wins),
   * pending for `createSeconds` where the record says so. A repeat of the caller's own registration
   * answers its state.
   */
  async registerDomain(reference) {
    const { domainName, registry, requestedDate, periodMonths, customer, order } = reference;
    const record = await forRegistration(domainName, registry, 'registerDomain');
    const at = new Date(requestedDate);
    const own = record ? ownOrTaken(record, reference) : undefined;
    if (own) return registrationStateOf(own, at);
    const pendingUntil = record?.createSeconds !== undefined ? toWireTime(at.getTime() + record.createSeconds * 1000) : undefined;
    const registered: RegistryDomainRecord = {
      domainName,
      registry,
      ...(order.authcode !== undefined ? { authcode: order.authcode } : { authcode: newAuthcode() }),
      statuses: ['ok'],
      expiryDate: toWireTime(addMonths(at, periodMonths)),
      ns: order.ns ?? [],
      keyData: order.keyData ?? [],
      designatedAgentAllowed: record?.designatedAgentAllowed ?? false,
      transfer: { stages: [], outcome: 'completed' },
      ...(record?.premium ? { premium: record.premium } : {}),
      ...(record?.renewPremium !== undefined ? { renewPremium: record.renewPremium } : {}),
      ...(record?.createFails !== undefined ? { createFails: record.createFails } : {}),
      registeredFor: { customer, requestedDate, periodMonths, ...(pendingUntil !== undefined ? { pendingUntil } : {}) },
    };
    if (await claimRegistryDomain(registered)) return registrationStateOf(registered, at);
    // Someone was first: the caller's own earlier request (its state), or anyone else (taken).
    const now = await forRegistration(domainName, registry, 'registerDomain');
    if (now && heldFor(now, reference)) return registrationStateOf(now, at);
    throw taken(domainName);
  },

  async registrationState(reference, at) {
    const record = await forRegistration(reference.domainName, reference.registry, 'registrationState');
    if (!record || !heldFor(record, reference)) {
      return { status: 'failed', reason: `The registry holds no registration of ${reference.domainName} for this registrar.` };
    }
    return registrationStateOf(record, at);
  },

  async renewDomain(request) {
    const record = await heldForLifecycle(request, 'renewDomain');
    const { domainName, currentExpiryDate, periodMonths } = request;
    if (record.redemptionUntil !== undefined || record.statuses.some((s) => /RenewProhibited$/.test(s)))
      throw refusedBy(domainName, 'renew');
    const after = toWireTime(addMonths(new Date(currentExpiryDate), periodMonths));
    // Renewed already by the same request (its answer lost): that renewal, not a second one.
    if (record.expiryDate === after) return { expiryDate: after };
    if (record.expiryDate !== currentExpiryDate) {
      throw new ObjectStatusProhibitsOperation(`The registry refuses to renew ${domainName}: its expiry is not ${currentExpiryDate}.`);
    }
    await putRegistryDomain({ ...record, expiryDate: after, statuses: record.statuses.filter((s) => s !== 'expired') });
    return { expiryDate: after };
  },

  async deleteDomain(request) {
    const record = await heldForLifecycle(request, 'deleteDomain');
    if (record.redemptionUntil !== undefined) return { redemptionUntil: record.redemptionUntil };
    if (record.statuses.some((s) => /DeleteProhibited$/.test(s))) throw refusedBy(request.domainName, 'delete');
    const redemptionUntil = toWireTime(request.at.getTime() + (request.redemptionDays ?? 30) * 86_400_000);
    await putRegistryDomain({ ...record, statuses: ['redemptionPeriod'], redemptionUntil });
    return { redemptionUntil };
  },

  async restoreDomain(request) {
    const record = await heldForLifecycle(request, 'restoreDomain');
    const { domainName, at } = request;
    // A name the registry has no record of is as the service holds it (its redemption end the service's to check).
    if (record.redemptionUntil === undefined && !record.statuses.includes('redemptionPeriod')) {
      // Restored already by the same request (its answer lost): as it stands.
      if (!record.statuses.includes('redemptionPeriod') && record.expiryDate >= request.currentExpiryDate)
        return { expiryDate: record.expiryDate };
      throw new ObjectStatusProhibitsOperation(`${domainName} is not in its redemption period at the registry.`);
    }
    if (record.redemptionUntil !== undefined && at.getTime() >= Date.parse(record.redemptionUntil))
      throw new ObjectDoesNotExist('Domain', domainName);
    const { redemptionUntil: _gone, ...rest } = record;
    // A name whose expiry passed comes back renewed for a year (the registry's restore includes a renewal).
    const expiryDate =
      Date.parse(record.expiryDate) <= at.getTime() ? toWireTime(addMonths(new Date(record.expiryDate), 12)) : record.expiryDate;
    await putRegistryDomain({ ...rest, statuses: ['ok'], expiryDate });
    return { expiryDate };
  },
};
