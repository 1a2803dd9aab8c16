import type { Principal } from '../auth/principal.ts';
import { ensureUpstreamContacts } from '../contacts/upstream.ts';
import { type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { getProductPrices } from '../db/repositories/prices.ts';
import {
  readDomainCollection,
  readTransferSnapshot,
  recordNewTransfer,
  type StartConflict,
  type TransferSnapshot,
} from '../db/repositories/transfers.ts';
import { withPremiumZoneLine } from '../dns/premium-charge.ts';
import {
  AuthorizationError,
  ObjectDoesNotExist,
  ObjectExists,
  ObjectStatusProhibitsOperation,
  ValidationError,
  type Violation,
} from '../errors.ts';
import type { ContactRecord } from '../model/contact.ts';
import type { CustomerRecord } from '../model/customer.ts';
import { commandOf, type Outcome, type ProcessRecord, type StartedProcess } from '../model/process.ts';
import type { ProviderMetadata, ProviderRecord } from '../model/provider.ts';
import { type TransferDetails, type TransferMove, type TransferPlan, type TransferResult, transferResultOf } from '../model/transfer.ts';
import type { ZoneHeader } from '../model/zone.ts';
import {
  assertAcknowledged,
  buildQuote,
  convertCents,
  domainProduct,
  latestRates,
  listPriceLine,
  type PriceList,
  type QuoteBody,
  type QuoteLine,
} from '../pricing/index.ts';
import {
  type RegistryGateway,
  type RegistryTransferState,
  type TransferCandidate,
  type TransferOrder,
  transferProhibited,
} from '../registry/gateway.ts';
import { registryGateway } from '../registry/select.ts';
import { addMonths, now, toWireTime } from '../time.ts';
import { createsZone, moveOf, zoneEffectOf } from './lifecycle.ts';
import { planTransfer } from './plan.ts';
import type { TransferBody } from './request.ts';

/**
 * The transfer-in use case (spec 2.1-2.6, 4.1; contract 3.1, 4, 5, 6): validate against the spec,
 * the registry's metadata and the account; price it; with `quote=true` answer the quote and the
 * plan; otherwise check the acknowledgment, submit to the registry and record the process with the
 * registry's first answer in one transaction.
 */

/** A transfer-in: the name, the request body (spec 2.1) and the caller. */
export interface TransferCall {
  domainName: string;
  body: TransferBody;
  principal: Principal;
}

/** The quote answer: contract section 4 plus the plan of what the transfer will change. */
export type TransferQuote = QuoteBody & { plan: TransferPlan };

interface Evaluation {
  registry: string;
  extension: string;
  plan: TransferPlan;
  quote: TransferQuote;
  list: PriceList;
  gateway: RegistryGateway;
  /** What the registry told about the name (handed back when the transfer is submitted). */
  candidate: TransferCandidate;
  /** The registrar the name leaves, as the registry named it. */
  losingRegistrar?: string;
  /** The request's items as read: the process and zone sequences, the name's zone (any account's), the zone template. */
  snapshot: TransferSnapshot;
  /** The handles the registry knows the named contacts by (shared/contacts/upstream.ts), by the customer's handle. */
  registryHandles: Map<string, string>;
}

const designatedAgentPermission = 'DESIGNATED_AGENT';
/** Registries cap a domain's registration at ten years ahead (ICANN; the sandbox follows it). */
const maxYearsAhead = 10;

// Refusals given in more than one place (the checks, and a lost race for the name): one wording each.
const notYourAccount = (customer: string) => new AuthorizationError(`Customer '${customer}' is not your account.`);
const alreadyYours = (domainName: string) => new ObjectExists(`${domainName} is already in your account.`);
const alreadyPending = (domainName: string) => new ObjectStatusProhibitsOperation(`A transfer of ${domainName} is already pending.`);

/** What a transfer request ends in: the quote and plan, or the transfer it started. */
export type TransferOutcome = Outcome<TransferQuote, TransferResult>;

/**
 * Transfers a domain in (spec 4.1), or with `quoteOnly` answers the quote and the plan and changes
 * nothing. `commitWith` is committed in the transaction that records the new transfer, built from
 * its outcome (db/repositories/commit-with.ts).
 */
export async function transferDomain(
  call: TransferCall,
  quoteOnly: boolean,
  commitWith: CommitWith<TransferOutcome> = commitNothing,
): Promise<TransferOutcome> {
  if (quoteOnly) return { quote: (await evaluate(call, now())).quote };
  return { started: await start(call, commitWith) };
}

/** Spec 2.1 / 5: the caller's own account, and the DESIGNATED_AGENT permission for any value but NONE. */
export function authorizeTransfer({ body, principal }: Pick<TransferCall, 'body' | 'principal'>): void {
  if (body.customer !== principal.customer) throw notYourAccount(body.customer);
  const agent = body.designatedAgent;
  if (agent !== undefined && agent !== 'NONE' && !principal.permissions.includes(designatedAgentPermission)) {
    throw new AuthorizationError(`designatedAgent ${agent} requires the ${designatedAgentPermission} permission.`);
  }
}

/** The registry's rules (contract 3.1): period, auth code, DNSSEC algorithms and count. All broken rules at once. */
function registryRules(call: TransferCall, registry: string, metadata: ProviderMetadata): number {
  const body = call.body;
  const violations: Violation[] = [];
  const periods = [...(metadata.transferDomainPeriods ?? [12])].sort((a, b) => a - b);
  const period = body.period ?? (periods[0] as number);
  if (!periods.includes(period)) {
    violations.push({ field: 'period', message: `must be one of ${periods.join(', ')} (months) at ${registry}`, value: period });
  }
  const supportsAuthcode = metadata.transferSupportsAuthcode ?? true;
  if (body.authcode === undefined && metadata.transferRequiresAuthcode === true) {
    violations.push({ field: 'authcode', message: `is required for a transfer at ${registry}` });
  }
  if (body.authcode !== undefined && !supportsAuthcode) {
    violations.push({ field: 'authcode', message: `is not used for transfers at ${registry}; leave it out` });
  }
  const keyData = body.keyData ?? [];
  const allowed = metadata.allowedDnssecAlgorithms;
  keyData.forEach((k, i) => {
    if (allowed && !allowed.includes(k.algorithm)) {
      violations.push({
        field: `keyData[${i}].algorithm`,
        message: `is not supported at ${registry}; use one of ${allowed.join(', ')}`,
        value: k.algorithm,
      });
    }
  });
  const max = metadata.allowedDnssecRecords;
  if (max !== undefined && keyData.length > max) {
    violations.push({
      field: 'keyData',
      message: max === 0 ? `DNSSEC is not supported at ${registry}` : `must have at most ${max} items at ${registry}`,
    });
  }
  if (violations.length > 0) throw new ValidationError(`The request breaks the transfer rules of ${registry}.`, violations);
  return period;
}

/** Spec 2.1: what is applied of `designatedAgent` (recorded on the process). */
function designatedAgentOf(
  requested: TransferPlan['designatedAgent']['requested'],
  candidate: TransferCandidate,
): TransferPlan['designatedAgent'] {
  if (requested === 'NONE') return { requested, applied: 'NONE' };
  if (!candidate.designatedAgentAllowed) return { requested, applied: 'NONE', note: 'ignored: the registry allows no designated agent' };
  if (candidate.registrantInteraction)
    return { requested, applied: 'NONE', note: 'ignored: interaction with the registrant is still required' };
  if (requested === 'OLD')
    return { requested, applied: 'NONE', note: 'ignored: acting for the old registrant is impossible on a transfer-in' };
  return { requested, applied: 'NEW', ...(requested === 'BOTH' ? { note: 'BOTH acts as NEW on a transfer-in' } : {}) };
}

/** The charges (contract section 4): TRANSFER for the period (premium where it applies) and PRIVACY_PROTECT when enabled and priced. */
async function priceTransfer(
  list: PriceList,
  found: { registry: string; extension: string },
  domainName: string,
  plan: TransferPlan,
  candidate: TransferCandidate,
  at: Date,
): Promise<QuoteBody> {
  const product = domainProduct(found.extension);
  // Prices are per 12 months; a shorter period is billed as a year.
  const years = Math.max(1, Math.ceil(plan.periodMonths / 12));
  const charge = { product, quantity: years, providerName: found.registry };
  const transfer = listPriceLine(list, { ...charge, action: 'TRANSFER' }, at);
  if (!transfer) {
    throw new ValidationError(
      `${domainName} cannot be transferred into this account: its price list has no TRANSFER price for ${product}.`,
      [{ field: 'domainName', message: `has no TRANSFER price (${product}) on this account's price list`, value: domainName }],
    );
  }
  const lines: QuoteLine[] = [transfer.line];
  if (candidate.premium) {
    const { currency, amount } = candidate.premium;
    let converted = amount;
    if (currency !== transfer.currency) {
      const rates = await latestRates();
      if (!rates) throw new ValidationError(`No exchange rates are stored; the premium price in ${currency} cannot be quoted.`);
      converted = convertCents(amount, currency, transfer.currency, rates);
    }
    lines[0] = { ...transfer.line, amount: converted };
  }
  if (plan.privacyProtect) {
    const privacy = listPriceLine(list, { ...charge, action: 'PRIVACY_PROTECT' }, at);
    if (privacy && privacy.currency === transfer.currency) lines.push(privacy.line);
  }
  return buildQuote('DomainTransfer', transfer.currency, lines);
}

/** Everything a transfer and its quote check and decide, in the order the errors are reported. */
async function evaluate(call: TransferCall, at: Date): Promise<Evaluation> {
  authorizeTransfer(call);
  const { body, principal, domainName } = call;
  const template = body.zone?.template;

  // One consistent BatchGet of everything but the prices; then the registry and the extension's
  // prices (one Query of that product's entries, not the customer's whole list) at once.
  const handles = [...new Set([body.registrant, ...(body.contacts ?? []).map((c) => c.handle)])];
  const snapshot = await readTransferSnapshot(principal.customer, domainName, handles, template);
  const found = registryOf(snapshot, domainName);
  const registry = found.provider.name;
  const period = registryRules(call, registry, found.provider.metadata);
  const customer = accountOf(snapshot, principal.customer, template);
  assertNameIsFree(snapshot, principal.customer, domainName);
  assertRegistrantProperties(snapshot.contacts.get(body.registrant) as ContactRecord, found.provider);
  const ownZone = ownZoneOf(snapshot.zone, principal.customer, domainName, body.zone !== undefined);

  const gateway = await registryGateway();
  // An upstream account must hold the contacts before the transfer names them there.
  const registryHandles = await ensureUpstreamContacts(principal.customer, handles);
  const [candidate, list] = await Promise.all([
    gateway.prepareTransfer({
      domainName,
      registry,
      periodMonths: period,
      order: registryOrderOf({ registrant: body.registrant, contacts: body.contacts ?? [] }, registryHandles),
      ...(body.authcode !== undefined ? { authcode: body.authcode } : {}),
      customer: principal.customer,
    }),
    getProductPrices(principal.customer, domainProduct(found.extension)),
  ]);
  const plan = planTransfer({
    body,
    candidate,
    periodMonths: period,
    privacyProtect: body.privacyProtect ?? customer.privacyProtect,
    existingZone: ownZone,
    designatedAgent: designatedAgentOf(body.designatedAgent ?? 'NONE', candidate),
  });
  assertWithinMaxYears(plan, at, domainName, period);
  // A PREMIUM zone the transfer provisions is charged with it (dns_premium CREATE: shared/dns/premium-charge.ts).
  const charged = await withPremiumZoneLine(
    { quote: await priceTransfer(list, { registry, extension: found.extension }, domainName, plan, candidate, at), list },
    plan.zone,
    principal.customer,
    domainName,
    at,
  );
  return {
    registry,
    extension: found.extension,
    plan,
    quote: { ...charged.quote, plan },
    list: charged.list,
    gateway,
    candidate,
    ...(candidate.registrar !== undefined ? { losingRegistrar: candidate.registrar } : {}),
    snapshot,
    registryHandles,
  };
}

/** The registry serving the name's extension (the longest that matches), as read with the request. */
function registryOf(snapshot: TransferSnapshot, domainName: string): NonNullable<TransferSnapshot['registry']> {
  if (snapshot.registry) return snapshot.registry;
  throw new ValidationError(`No registry serves the extension of ${domainName}.`, [
    { field: 'domainName', message: 'has an extension no registry serves', value: domainName },
  ]);
}

/** Spec 2.1: the caller's account, every contact handle named and the zone template exist. Answers the account. */
function accountOf(snapshot: TransferSnapshot, customer: string, template: string | undefined): CustomerRecord {
  if (!snapshot.customer) throw notYourAccount(customer);
  const missing = [...snapshot.contacts].find(([, contact]) => contact === undefined);
  if (missing) throw new ObjectDoesNotExist('Contact', missing[0], 'body');
  if (template !== undefined && !snapshot.template) throw new ObjectDoesNotExist('Template', template, 'body');
  return snapshot.customer;
}

/**
 * A registrant carries the contact properties its registry requires of one (SIDN's `legalForm`
 * for `.nl`: the registry's mandatory `contactProperties`), else a 400 naming the property.
 */
function assertRegistrantProperties(registrant: ContactRecord, provider: ProviderRecord): void {
  const missing = (provider.metadata.contactProperties ?? []).filter(
    (p) => p.mandatory && registrant.properties?.[provider.name]?.[p.name] === undefined,
  );
  if (missing.length === 0) return;
  throw new ValidationError(
    `Contact '${registrant.handle}' cannot be the registrant at ${provider.name} without its ${missing.map((p) => p.name).join(', ')}: add them with POST /v2/customers/{customer}/contacts/${registrant.handle}/${provider.name}.`,
    missing.map((p) => ({ field: 'registrant', message: `lacks the ${provider.name} property ${p.name}`, value: registrant.handle })),
  );
}

/** The name is neither in an account nor being transferred (the caller's own, or, worded as a registry lock, another's). */
function assertNameIsFree({ domain, lock }: TransferSnapshot, customer: string, domainName: string): void {
  if (domain?.customer === customer) throw alreadyYours(domainName);
  if (lock?.customer === customer) throw alreadyPending(domainName);
  // A name another account holds or is transferring answers exactly like a registry lock (contract section 1).
  if (domain || lock) throw transferProhibited(domainName);
}

/**
 * The name's zone as the plan sees it: the caller's own, or none when it is another account's,
 * which is never touched (then asking for a zone is refused).
 */
function ownZoneOf(zone: ZoneHeader | undefined, customer: string, domainName: string, zoneRequested: boolean): ZoneHeader | undefined {
  if (zone === undefined || zone.customer === customer) return zone;
  if (zoneRequested) {
    throw new ObjectStatusProhibitsOperation(`A zone for ${domainName} cannot be provisioned: the name's zone is managed elsewhere.`);
  }
  return undefined;
}

/** The new expiry may lie at most maxYearsAhead years from now. */
function assertWithinMaxYears(plan: TransferPlan, at: Date, domainName: string, period: number): void {
  if (plan.expiry === undefined || plan.expiry.after <= toWireTime(addMonths(at, maxYearsAhead * 12))) return;
  throw new ValidationError(`The transfer would extend ${domainName} beyond ${maxYearsAhead} years from now.`, [
    { field: 'period', message: `would put the expiry (${plan.expiry?.after}) more than ${maxYearsAhead} years ahead`, value: period },
  ]);
}

/**
 * The transfer itself (never a quote): the registry first, then one transaction that records the
 * process with the registry's first answer applied, together with the name's pending state or, when
 * the registry completed it at once, the domain and its zone. Nothing of ours is written before the
 * registry has taken the transfer, so a failure at any step leaves nothing behind and a retry starts
 * afresh: the registry gateway answers a repeated request for a transfer it already holds for us
 * with that transfer's state (shared/registry/gateway.ts).
 */
async function start(call: TransferCall, commitWith: CommitWith<TransferOutcome>): Promise<StartedProcess<TransferResult>> {
  const at = now();
  const ev = await evaluate(call, at);
  const { body, domainName } = call;
  assertAcknowledged(ev.quote, ev.list, body.billables, at);

  const state = await ev.gateway.requestTransfer({
    domainName,
    registry: ev.registry,
    requestedDate: toWireTime(at),
    periodMonths: ev.plan.periodMonths,
    ...(body.authcode !== undefined ? { authcode: body.authcode } : {}),
    order: registryOrderOf(orderOf(ev.plan), ev.registryHandles),
    candidate: ev.candidate,
    customer: call.principal.customer,
  });
  const record = (zone: ZoneHeader | undefined) => recordFirstAnswer(call, ev, state, at, zone, commitWith);
  let outcome = await record(ev.snapshot.zone);
  if ('conflict' in outcome && outcome.conflict === 'zone') {
    // The name's zone changed between the read and the write (rare): decide the zone again from a fresh read.
    outcome = await record((await readDomainCollection(domainName)).zone);
  }
  if ('conflict' in outcome) return refuseLostRace(call, outcome.conflict);
  return startedOf(outcome.move);
}

/** What the registry is asked for besides the name: the plan's contacts, and the lists the plan replaces or removes. */
function orderOf(plan: TransferPlan): TransferOrder {
  return {
    ...plan.contacts,
    ...(plan.nameServers.change !== 'kept' ? { ns: plan.nameServers.after } : {}),
    ...(plan.dnssec.change !== 'kept' ? { keyData: plan.dnssec.after } : {}),
  };
}

/** An order with its contacts named as the registry knows them. */
function registryOrderOf(order: TransferOrder, handles: ReadonlyMap<string, string>): TransferOrder {
  const named = (handle: string) => handles.get(handle) ?? handle;
  return { ...order, registrant: named(order.registrant), contacts: order.contacts.map((c) => ({ ...c, handle: named(c.handle) })) };
}

/** The started transfer a recorded move answers: its process id and its transfer result. */
function startedOf({ process }: TransferMove): StartedProcess<TransferResult> {
  const result = transferResultOf(process);
  return { processId: process.id, completed: result.status === 'completed', view: result };
}

/**
 * Records the new transfer with the registry's first answer, claiming its ids in the same
 * transaction, and what is to be committed with its outcome; on completion with the zone decided
 * from `existingZone`.
 */
function recordFirstAnswer(
  call: TransferCall,
  ev: Evaluation,
  state: RegistryTransferState,
  at: Date,
  existingZone: ZoneHeader | undefined,
  commitWith: CommitWith<TransferOutcome>,
): ReturnType<typeof recordNewTransfer> {
  const { domainName, principal } = call;
  const completing = state.status === 'completed';
  const requestedDate = toWireTime(at);
  return recordNewTransfer(
    { process: ev.snapshot.processCounter, ...(completing && createsZone(ev.plan, existingZone) ? { zone: ev.snapshot.zoneCounter } : {}) },
    (ids) => {
      const zone = completing
        ? zoneEffectOf(ev.plan, domainName, principal.customer, requestedDate, existingZone, ev.snapshot.template, ids.zone)
        : undefined;
      const move = moveOf(newProcess(call, ev, state, ids.process, requestedDate), state, at, zone, true);
      if (!move) throw new Error(`The registry's first answer for ${domainName} changed nothing`);
      return move;
    },
    (move) => commitWith({ started: startedOf(move) }),
  );
}

/** A new transfer's process as it is about to be recorded, before the registry's first answer is applied (moveOf). */
function newProcess(call: TransferCall, ev: Evaluation, state: RegistryTransferState, id: number, requestedDate: string): ProcessRecord {
  const { body, principal, domainName } = call;
  const details: TransferDetails = {
    domainName,
    registry: ev.registry,
    extension: ev.extension,
    type: 'IN',
    status: state.status,
    version: 1,
    requestedDate,
    plan: ev.plan,
    ...(body.transferContacts ? { transferContacts: body.transferContacts } : {}),
    ...(body.languageCode ? { languageCode: body.languageCode } : {}),
    ...(ev.losingRegistrar !== undefined ? { losingRegistrar: ev.losingRegistrar } : {}),
    ...(state.registryReference !== undefined ? { registryReference: state.registryReference } : {}),
    history: [],
  };
  const { currency, billables = [] } = ev.quote.quote;
  return {
    id,
    customer: principal.customer,
    user: principal.user,
    type: 'domain',
    action: 'transfer',
    identifier: domainName,
    status: 'RUNNING',
    createdDate: requestedDate,
    updatedDate: requestedDate,
    billables,
    command: commandOf({ domainName, ...body }),
    ...(currency !== undefined ? { currency } : {}),
    details,
  };
}

/** Lost a race for the name to another request: the winner's state decides the refusal, as in evaluate(). */
async function refuseLostRace({ domainName, principal }: TransferCall, conflict: StartConflict): Promise<never> {
  const winner = await readDomainCollection(domainName);
  if (winner.domain?.customer === principal.customer) throw alreadyYours(domainName);
  if (conflict === 'pending' && (winner.lock === undefined || winner.lock.customer === principal.customer)) {
    throw alreadyPending(domainName);
  }
  throw transferProhibited(domainName);
}
