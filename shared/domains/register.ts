import * as v from 'valibot';
import type { Principal } from '../auth/principal.ts';
import { type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { getProductPrices } from '../db/repositories/prices.ts';
import { clearRegistrationIntent, type RegistrationIntent, recordRegistrationIntent } from '../db/repositories/registration-intents.ts';
import { getRegistrationLock, type RegistrationConflict, recordNewRegistration } from '../db/repositories/registrations.ts';
import { readDomainCollection, readTransferSnapshot, type TransferSnapshot } from '../db/repositories/transfers.ts';
import { withPremiumZoneLine } from '../dns/premium-charge.ts';
import {
  AppError,
  AuthorizationError,
  ObjectDoesNotExist,
  ObjectExists,
  ObjectStatusProhibitsOperation,
  ValidationError,
  type Violation,
} from '../errors.ts';
import { logger } from '../logger.ts';
import type { ContactRecord } from '../model/contact.ts';
import type { DomainRecord } from '../model/domain.ts';
import { commandOf, type Outcome, type ProcessRecord, type StartedProcess } from '../model/process.ts';
import type { ProviderRecord } from '../model/provider.ts';
import type { QuoteBody } from '../model/quote.ts';
import { type RegistrationDetails, type RegistrationMove, type RegistrationPlan, registrationProcess } from '../model/registration.ts';
import type { ZoneHeader } from '../model/zone.ts';
import {
  assertAcknowledged,
  buildQuote,
  convertCents,
  domainProduct,
  latestRates,
  listPriceLine,
  type PriceList,
  type QuoteLine,
} from '../pricing/index.ts';
import type { RegistrationCandidate, RegistrationOrder, RegistrationState, RegistryGateway } from '../registry/gateway.ts';
import { registryGateway } from '../registry/select.ts';
import { now, toWireTime } from '../time.ts';
import { createsZone, zoneEffectOf } from '../transfer/lifecycle.ts';
import { planZone } from '../transfer/plan.ts';
import { RegisterBody } from './register-request.ts';
import type { RegistrationView } from './registration-view.ts';

/**
 * `POST /v2/domains/{domainName}[?quote=true]`: registers a free name. Checked against the body's
 * schema, the caller's account and contacts and the registry's rules from its metadata (periods,
 * contact roles and counts, required contact properties, name server counts, DNSSEC, launch
 * phases); priced from the caller's price list (CREATE, a premium name's CREATE on
 * `domain_<extension>_premium`, PRIVACY_PROTECT); with `quote=true` the quote, nothing written.
 * Otherwise the acknowledgment is checked, the registry is asked, and one transaction records the
 * process with its billables and the registry's answer: the domain (and its zone) when it
 * registered the name at once, or the name's pending state for the poller
 * (shared/domains/registration-poll.ts). Nothing of the registration is written before the
 * registry answers but its intent (who asks for the name, when, for how long), and the registry
 * answers a repeat of the caller's own registration, which that intent explains, with that
 * registration, so a retry after a failure at any step registers and charges once; without a
 * retry, the poller adopts it from the intent (settleRegistrationIntent).
 */

export interface RegisterCall {
  domainName: string;
  body: RegisterBody;
  principal: Principal;
}

export type RegisterOutcome = Outcome<QuoteBody, RegistrationView>;

/** The quote's command, as the real API names it. */
export const registerCommand = 'CreateDomainCommand';

interface Evaluation {
  registry: string;
  extension: string;
  plan: RegistrationPlan;
  quote: QuoteBody;
  list: PriceList;
  gateway: RegistryGateway;
  candidate: RegistrationCandidate;
  snapshot: TransferSnapshot;
}

const notYourAccount = (customer: string) => new AuthorizationError(`Customer '${customer}' is not your account.`);
const taken = (domainName: string) => new ObjectExists(`${domainName} is already registered.`);
const alreadyYours = (domainName: string) => new ObjectExists(`${domainName} is already in your account.`);
const alreadyPending = (domainName: string) => new ObjectStatusProhibitsOperation(`A registration of ${domainName} is already pending.`);

/** The caller's own account only. */
export function authorizeRegistration({ body, principal }: Pick<RegisterCall, 'body' | 'principal'>): void {
  if (body.customer !== principal.customer) throw notYourAccount(body.customer);
}

/** Registers a domain, or with `quoteOnly` answers the quote and changes nothing. */
export async function registerDomain(
  call: RegisterCall,
  quoteOnly: boolean,
  commitWith: CommitWith<RegisterOutcome> = commitNothing,
): Promise<RegisterOutcome> {
  if (quoteOnly) return { quote: (await evaluate(call, now())).quote };
  return { started: await start(call, commitWith) };
}

/** The registry's rules from its metadata, every broken rule at once; answers the period (months). */
function registryRules(body: RegisterBody, provider: ProviderRecord): number {
  const registry = provider.name;
  const { metadata, tldMetadata: tld } = provider;
  const violations: Violation[] = [];
  if (tld && !tld.featuresAvailable.includes('CREATE')) {
    throw new ObjectStatusProhibitsOperation(`${registry} takes no new registrations through this service.`);
  }
  const periods = [...(metadata.createDomainPeriods ?? [12])].sort((a, b) => a - b);
  const period = body.period ?? (periods[0] as number);
  if (!periods.includes(period)) {
    violations.push({ field: 'period', message: `must be one of ${periods.join(', ')} (months) at ${registry}`, value: period });
  }
  if (tld) {
    const roles = [
      ['ADMIN', tld.adminContacts],
      ['BILLING', tld.billingContacts],
      ['TECH', tld.techContacts],
    ] as const;
    for (const [role, rule] of roles) {
      // A role the registry has none of (max 0) is left out, not refused: the WHMCS module sends all three.
      if (rule.max === 0) continue;
      const count = (body.contacts ?? []).filter((c) => c.role === role).length;
      const min = rule.required ? Math.max(1, rule.min) : rule.min;
      if (count < min || count > rule.max) {
        violations.push({
          field: 'contacts',
          message: `must name ${min === rule.max ? `exactly ${min}` : `${min} to ${rule.max}`} ${role} contact${rule.max === 1 ? '' : 's'} at ${registry}`,
        });
      }
    }
    const ns = body.ns ?? [];
    const rule = tld.nameservers;
    if (rule.required && ns.length === 0 && body.zone === undefined) {
      violations.push({ field: 'ns', message: `is required at ${registry} (or ask for a zone)` });
    }
    if (ns.length > 0 && (ns.length < rule.min || ns.length > rule.max)) {
      violations.push({ field: 'ns', message: `must list ${rule.min} to ${rule.max} name servers at ${registry}` });
    }
    if (body.authcode !== undefined && !tld.customAuthcodeSupport) {
      violations.push({ field: 'authcode', message: `cannot be chosen at ${registry}; leave it out` });
    }
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
  if (body.launchPhase !== undefined) {
    const phases = (metadata.launchPhases ?? []).map((p) => p.phase);
    if (!phases.includes(body.launchPhase)) {
      violations.push({
        field: 'launchPhase',
        message: phases.length === 0 ? `${registry} has no launch phase` : `must be one of ${phases.join(', ')} at ${registry}`,
        value: body.launchPhase,
      });
    }
  }
  if (violations.length > 0) throw new ValidationError(`The request breaks the registration rules of ${registry}.`, violations);
  return period;
}

/** The contacts of the roles the registry has (a role whose TLD metadata allows none is left out). */
function contactsKept(body: RegisterBody, provider: ProviderRecord): RegisterBody['contacts'] & {} {
  const tld = provider.tldMetadata;
  const max = { ADMIN: tld?.adminContacts.max, BILLING: tld?.billingContacts.max, TECH: tld?.techContacts.max };
  return (body.contacts ?? []).filter((c) => max[c.role] !== 0);
}

/** The registrant carries the contact properties its registry requires (SIDN's `legalForm`), else a 400 naming them. */
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

/** The name's zone as the plan sees it: the caller's own; another account's is never touched (asking for a zone is then refused). */
function ownZoneOf(zone: ZoneHeader | undefined, customer: string, domainName: string, zoneRequested: boolean): ZoneHeader | undefined {
  if (zone === undefined || zone.customer === customer) return zone;
  if (zoneRequested) {
    throw new ObjectStatusProhibitsOperation(`A zone for ${domainName} cannot be provisioned: the name's zone is managed elsewhere.`);
  }
  return undefined;
}

/** The charges: CREATE for the period (a premium name's on its premium product), PRIVACY_PROTECT when on and priced. */
async function priceRegistration(
  list: PriceList,
  found: { registry: string; extension: string },
  domainName: string,
  plan: RegistrationPlan,
  candidate: RegistrationCandidate,
  at: Date,
): Promise<QuoteBody> {
  const product = domainProduct(found.extension);
  // Prices are per 12 months; a shorter period is billed as a year.
  const years = Math.max(1, Math.ceil(plan.periodMonths / 12));
  const charge = { product, quantity: years, providerName: found.registry };
  const create = listPriceLine(list, { ...charge, action: 'CREATE' }, at);
  if (!create) {
    throw new ValidationError(`${domainName} cannot be registered in this account: its price list has no CREATE price for ${product}.`, [
      { field: 'domainName', message: `has no CREATE price (${product}) on this account's price list`, value: domainName },
    ]);
  }
  const lines: QuoteLine[] = [create.line];
  if (candidate.premium) {
    const { currency, amount } = candidate.premium;
    let converted = amount;
    if (currency !== create.currency) {
      const rates = await latestRates();
      if (!rates) throw new ValidationError(`No exchange rates are stored; the premium price in ${currency} cannot be quoted.`);
      converted = convertCents(amount, currency, create.currency, rates);
    }
    lines[0] = { ...create.line, product: `${product}_premium`, amount: converted };
  }
  if (plan.privacyProtect) {
    const privacy = listPriceLine(list, { ...charge, action: 'PRIVACY_PROTECT' }, at);
    if (privacy && privacy.currency === create.currency) lines.push(privacy.line);
  }
  return buildQuote(registerCommand, create.currency, lines);
}

/** Everything a registration and its quote check and decide, in the order the errors are reported. */
async function evaluate(call: RegisterCall, at: Date): Promise<Evaluation> {
  authorizeRegistration(call);
  const { body, principal, domainName } = call;
  const template = body.zone?.template;
  const handles = [...new Set([body.registrant, ...(body.contacts ?? []).map((c) => c.handle)])];
  const snapshot = await readTransferSnapshot(principal.customer, domainName, handles, template);
  if (!snapshot.registry) {
    throw new ValidationError(`No registry serves the extension of ${domainName}.`, [
      { field: 'domainName', message: 'has an extension no registry serves', value: domainName },
    ]);
  }
  const { provider, extension } = snapshot.registry;
  const registry = provider.name;
  const period = registryRules(body, provider);
  if (!snapshot.customer) throw notYourAccount(principal.customer);
  const missing = [...snapshot.contacts].find(([, contact]) => contact === undefined);
  if (missing) throw new ObjectDoesNotExist('Contact', missing[0], 'body');
  if (template !== undefined && !snapshot.template) throw new ObjectDoesNotExist('Template', template, 'body');
  // A name in an account here (or being transferred in) is registered: the caller's own says so, anyone else's reads like any registered name.
  if (snapshot.domain?.customer === principal.customer) throw alreadyYours(domainName);
  if (snapshot.domain || snapshot.lock) throw taken(domainName);
  // The caller's own registration of the name pending here (a retry after the poller took it up): already pending.
  if ((await getRegistrationLock(domainName))?.customer === principal.customer) throw alreadyPending(domainName);
  assertRegistrantProperties(snapshot.contacts.get(body.registrant) as ContactRecord, provider);
  const ownZone = ownZoneOf(snapshot.zone, principal.customer, domainName, body.zone !== undefined);

  const gateway = await registryGateway();
  const plan: RegistrationPlan = {
    periodMonths: period,
    registrant: body.registrant,
    contacts: contactsKept(body, provider),
    ns: body.ns ?? [],
    keyData: (body.keyData ?? []).map(({ protocol, flags, algorithm, publicKey }) => ({ protocol, flags, algorithm, publicKey })),
    privacyProtect: body.privacyProtect ?? snapshot.customer.privacyProtect,
    autoRenew: body.autoRenew ?? true,
    premium: false,
    ...(body.languageCode !== undefined ? { languageCode: body.languageCode } : {}),
    zone: planZone(body.zone, ownZone),
  };
  const [candidate, list] = await Promise.all([
    gateway.prepareRegistration({ domainName, registry, periodMonths: period, customer: principal.customer, order: orderOf(body, plan) }),
    getProductPrices(principal.customer, domainProduct(extension)),
  ]);
  const priced = { ...plan, premium: candidate.premium !== undefined };
  // A PREMIUM zone the registration provisions is charged with it (dns_premium CREATE: shared/dns/premium-charge.ts).
  const charged = await withPremiumZoneLine(
    { quote: await priceRegistration(list, { registry, extension }, domainName, priced, candidate, at), list },
    priced.zone,
    principal.customer,
    domainName,
    at,
  );
  return { registry, extension, plan: priced, quote: charged.quote, list: charged.list, gateway, candidate, snapshot };
}

/** What the registry is asked for besides the name and period. */
function orderOf(body: RegisterBody, plan: RegistrationPlan): RegistrationOrder {
  return {
    registrant: plan.registrant,
    contacts: plan.contacts,
    ...(plan.ns.length > 0 ? { ns: plan.ns } : {}),
    ...(plan.keyData.length > 0 ? { keyData: plan.keyData } : {}),
    privacyProtect: plan.privacyProtect,
    ...(plan.languageCode !== undefined ? { languageCode: plan.languageCode } : {}),
    ...(body.launchPhase !== undefined ? { launchPhase: body.launchPhase } : {}),
    ...(body.authcode !== undefined ? { authcode: body.authcode } : {}),
  };
}

/**
 * The registration itself: the registry first, then one transaction recording the process (with
 * its billables: the charge), the domain and zone or the name's pending state, the notification and
 * the Idempotency-Key's answer. A registry that refuses writes and charges nothing.
 */
async function start(call: RegisterCall, commitWith: CommitWith<RegisterOutcome>): Promise<StartedProcess<RegistrationView>> {
  const at = now();
  const ev = await evaluate(call, at);
  assertAcknowledged(ev.quote, ev.list, call.body.billables, at);
  const requestedDate = toWireTime(at);
  const intent: RegistrationIntent = {
    domainName: call.domainName,
    customer: call.principal.customer,
    user: call.principal.user,
    requestedDate,
    periodMonths: ev.plan.periodMonths,
    ...(ev.candidate.premium ? { premium: ev.candidate.premium } : {}),
    // Never the auth code: the intent keeps what a later adoption needs, no secret.
    body: Object.fromEntries(Object.entries(call.body).filter(([field, value]) => field !== 'authcode' && value !== undefined)),
  };
  // The intent first: should the registry's answer be lost, a retry or the poller adopts what it made (docs/domains.md).
  await recordRegistrationIntent(intent);
  const started = await submit(call, ev, requestedDate, commitWith, intent);
  await clearRegistrationIntent(intent).catch((cause: unknown) =>
    logger.warn('registration intent not cleared', { domainName: call.domainName, error: cause as Error }),
  );
  return started;
}

/** Whether an error is the registry's (or our) refusal, which leaves nothing made at the registry; else its outcome is unknown. */
const isRefusal = (error: unknown) => error instanceof AppError && error.status < 500;

/**
 * The registry asked, then its answer recorded with the charge: a refusal clears the request's
 * intent (the registry made nothing), any other failure keeps it for a retry or the poller.
 */
async function submit(
  call: RegisterCall,
  ev: Evaluation,
  requestedDate: string,
  commitWith: CommitWith<RegisterOutcome>,
  intent: RegistrationIntent,
): Promise<StartedProcess<RegistrationView>> {
  const { body, domainName, principal } = call;
  const forget = () =>
    clearRegistrationIntent(intent).catch((cause: unknown) =>
      logger.warn('registration intent not cleared', { domainName, error: cause as Error }),
    );
  let state: RegistrationState;
  try {
    state = await ev.gateway.registerDomain({
      domainName,
      registry: ev.registry,
      requestedDate,
      periodMonths: ev.plan.periodMonths,
      customer: principal.customer,
      order: orderOf(body, ev.plan),
      candidate: ev.candidate,
    });
  } catch (error) {
    if (isRefusal(error)) await forget();
    throw error;
  }
  if (state.status === 'failed') {
    await forget();
    throw new ObjectStatusProhibitsOperation(
      `The registry refused the registration of ${domainName}: ${state.reason ?? 'no reason given'}.`,
    );
  }
  const record = (zone: ZoneHeader | undefined) => recordFirstAnswer(call, ev, state, requestedDate, zone, commitWith);
  let outcome = await record(ev.snapshot.zone);
  if ('conflict' in outcome && outcome.conflict === 'zone') outcome = await record((await readDomainCollection(domainName)).zone);
  if ('conflict' in outcome) return refuseLostRace(domainName, principal.customer, outcome.conflict);
  return startedOf(outcome.move);
}

/** What the poller did with a registration intent older than its request could live. */
export type IntentSettlement = 'recorded' | 'adopted' | 'nothing';

/**
 * The poller's part for a registration whose request died before recording the registry's answer
 * and that no retry recorded: when the registry holds the registration this intent explains (the
 * same customer, period, and time), it is adopted into the customer's account as its retry would
 * have recorded it: priced again and checked against the acknowledgment the request carried,
 * charged once, notified. One the registry still keeps pending is taken up pending, as its retry
 * would have recorded it (charged, CreateDomainEvent PENDING): the registration poller then
 * completes it or fails it with its refund, as any pending registration. A name recorded here
 * meanwhile (its retry, or anyone's) and a registry that holds nothing for it (the request failed
 * before the registry took it) leave nothing to do. The caller clears the intent afterwards.
 */
export async function settleRegistrationIntent(intent: RegistrationIntent, at: Date): Promise<IntentSettlement> {
  const [{ domain, lock }, pending] = await Promise.all([readDomainCollection(intent.domainName), getRegistrationLock(intent.domainName)]);
  // Recorded meanwhile: in an account, being transferred, or a registration pending here (its retry's, or anyone's).
  if (domain || lock || pending) return 'recorded';
  const body = v.parse(RegisterBody, intent.body);
  const call: RegisterCall = {
    domainName: intent.domainName,
    body,
    principal: { customer: intent.customer, user: intent.user, permissions: [] },
  };
  const ev = await evaluate(call, at);
  if (!ev.candidate.held) return 'nothing';
  assertAcknowledged(ev.quote, ev.list, body.billables, at);
  await submit(call, ev, intent.requestedDate, commitNothing, intent);
  return 'adopted';
}

/** The view a recorded registration answers. */
export function startedOf({ process, domain }: RegistrationMove): StartedProcess<RegistrationView> {
  const domainName = process.identifier;
  if (!domain) return { processId: process.id, completed: false, view: { domainName } };
  return { processId: process.id, completed: true, view: { domainName, expiryDate: domain.expiryDate, status: domain.status } };
}

function recordFirstAnswer(
  call: RegisterCall,
  ev: Evaluation,
  state: RegistrationState,
  requestedDate: string,
  existingZone: ZoneHeader | undefined,
  commitWith: CommitWith<RegisterOutcome>,
) {
  const completing = state.status === 'completed';
  return recordNewRegistration(
    { process: ev.snapshot.processCounter, ...(completing && createsZone(ev.plan, existingZone) ? { zone: ev.snapshot.zoneCounter } : {}) },
    (ids) => firstMove(call, ev, state, requestedDate, ids, existingZone),
    (move) => commitWith({ started: startedOf(move) }),
  );
}

/** The new registration's process with the registry's first answer, and what it writes. */
function firstMove(
  call: RegisterCall,
  ev: Evaluation,
  state: RegistrationState,
  requestedDate: string,
  ids: { process: number; zone?: number },
  existingZone: ZoneHeader | undefined,
): RegistrationMove {
  const { body, principal, domainName } = call;
  const { currency, billables = [] } = ev.quote.quote;
  const details: RegistrationDetails = {
    domainName,
    registry: ev.registry,
    extension: ev.extension,
    status: state.status === 'completed' ? 'completed' : 'pending',
    version: 1,
    requestedDate,
    plan: ev.plan,
    ...(state.registryReference !== undefined ? { registryReference: state.registryReference } : {}),
  };
  const process: ProcessRecord = {
    id: ids.process,
    customer: principal.customer,
    user: principal.user,
    ...registrationProcess,
    identifier: domainName,
    status: 'RUNNING',
    createdDate: requestedDate,
    updatedDate: requestedDate,
    billables,
    command: commandOf({ domainName, ...body }),
    ...(currency !== undefined ? { currency } : {}),
    details,
  };
  if (state.status === 'completed') {
    return completedMove(process, details, state, requestedDate, existingZone, ev.snapshot.template, ids.zone);
  }
  const actionDate = state.actionDate ?? requestedDate;
  return {
    process: { ...process, details: { ...details, actionDate } },
    lock: { domainName, customer: principal.customer, processId: process.id, version: 1, requestedDate, actionDate },
  };
}

/** A registration the registry completed: the process, the domain in the account, its zone. */
export function completedMove(
  process: ProcessRecord,
  details: RegistrationDetails,
  state: RegistrationState,
  now: string,
  existingZone: ZoneHeader | undefined,
  template: TransferSnapshot['template'],
  zoneId: number | undefined,
): RegistrationMove {
  const { plan, domainName } = details;
  if (state.expiryDate === undefined) throw new Error(`The registry completed the registration of ${domainName} without its expiry`);
  const zone = zoneEffectOf(plan, domainName, process.customer, now, existingZone, template, zoneId);
  const { actionDate: _, ...rest } = details;
  const ended: RegistrationDetails = {
    ...rest,
    status: 'completed',
    expiryDate: state.expiryDate,
    ...(zone ? { zoneId: zone.record.id } : {}),
  };
  const domain: DomainRecord = {
    domainName,
    customer: process.customer,
    registry: details.registry,
    registrant: plan.registrant,
    contacts: plan.contacts,
    ns: plan.ns,
    keyData: plan.keyData,
    privacyProtect: plan.privacyProtect,
    autoRenew: plan.autoRenew,
    autoRenewPeriod: 12,
    premium: plan.premium,
    ...(state.authcode !== undefined ? { authcode: state.authcode } : {}),
    ...(plan.languageCode !== undefined ? { languageCode: plan.languageCode } : {}),
    status: ['OK'],
    createdDate: now,
    updatedDate: now,
    expiryDate: state.expiryDate,
  };
  return { process: { ...process, status: 'COMPLETED', updatedDate: now, details: ended }, domain, ...(zone ? { zone } : {}) };
}

/** Lost a race for the name: the winner's state decides the refusal. */
async function refuseLostRace(domainName: string, customer: string, conflict: RegistrationConflict): Promise<never> {
  const winner = await readDomainCollection(domainName);
  if (winner.domain?.customer === customer) throw alreadyYours(domainName);
  if (conflict === 'pending' && !winner.domain && !winner.lock) throw alreadyPending(domainName);
  throw taken(domainName);
}
