import type { Principal } from '../auth/principal.ts';
import { getPriceList } from '../db/repositories/prices.ts';
import { readDomainCollection, readTransferSnapshot, recordNewTransfer } from '../db/repositories/transfers.ts';
import {
  AuthorizationError,
  ObjectDoesNotExist,
  ObjectExists,
  ObjectStatusProhibitsOperation,
  ValidationError,
  type Violation,
} from '../errors.ts';
import type { Outcome, ProcessRecord, StartedProcess } from '../model/process.ts';
import type { ProviderMetadata } from '../model/provider.ts';
import { type TransferDetails, type TransferPlan, type TransferResult, transferResultOf } from '../model/transfer.ts';
import type { TemplateRecord, ZoneRecord } from '../model/zone.ts';
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
import { type RegistryGateway, type TransferCandidate, transferProhibited } from '../registry/gateway.ts';
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
  /** The process and zone sequences as read with the request's items. */
  processCounter: number;
  zoneCounter: number;
  /** The name's zone as read (any account's), and the requested zone template. */
  existingZone?: ZoneRecord;
  template?: TemplateRecord;
}

const designatedAgentPermission = 'DESIGNATED_AGENT';
/** Registries cap a domain's registration at ten years ahead (ICANN; the sandbox follows it). */
const maxYearsAhead = 10;

/** Transfers a domain in (spec 4.1), or with `quoteOnly` answers the quote and the plan and changes nothing. */
export async function transferDomain(call: TransferCall, quoteOnly: boolean): Promise<Outcome<TransferQuote, TransferResult>> {
  if (quoteOnly) return { quote: (await evaluate(call, now())).quote };
  return { started: await start(call) };
}

/** Spec 2.1 / 5: the caller's own account, and the DESIGNATED_AGENT permission for any value but NONE. */
function authorize({ body, principal }: TransferCall): void {
  if (body.customer !== principal.customer) {
    throw new AuthorizationError(`Customer '${body.customer}' is not your account.`);
  }
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
  extension: string,
  domainName: string,
  plan: TransferPlan,
  candidate: TransferCandidate,
  at: Date,
): Promise<QuoteBody> {
  const product = domainProduct(extension);
  // Prices are per 12 months; a shorter period is billed as a year.
  const years = Math.max(1, Math.ceil(plan.periodMonths / 12));
  const transfer = listPriceLine(list, product, 'TRANSFER', years, at);
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
    const privacy = listPriceLine(list, product, 'PRIVACY_PROTECT', years, at);
    if (privacy && privacy.currency === transfer.currency) lines.push(privacy.line);
  }
  return buildQuote('DomainTransfer', transfer.currency, lines);
}

/** Everything a transfer and its quote check and decide, in the order the errors are reported. */
async function evaluate(call: TransferCall, at: Date): Promise<Evaluation> {
  authorize(call);
  const { body, principal, domainName } = call;

  // One consistent BatchGet of everything but the price list, and the price list's Query, at once.
  const handles = [...new Set([body.registrant, ...(body.contacts ?? []).map((c) => c.handle)])];
  const [snapshot, list] = await Promise.all([
    readTransferSnapshot(principal.customer, domainName, handles, body.zone?.template),
    getPriceList(principal.customer),
  ]);
  const found = snapshot.registry;
  if (!found) {
    throw new ValidationError(`No registry serves the extension of ${domainName}.`, [
      { field: 'domainName', message: 'has an extension no registry serves', value: domainName },
    ]);
  }
  const registry = found.provider.name;
  const period = registryRules(call, registry, found.provider.metadata);

  const { customer, template } = snapshot;
  const collection = snapshot;
  if (!customer) throw new AuthorizationError(`Customer '${principal.customer}' is not your account.`);
  const missing = [...snapshot.contacts].find(([, contact]) => contact === undefined);
  if (missing) throw new ObjectDoesNotExist('Contact', missing[0], 'body');
  if (body.zone?.template !== undefined && !template) throw new ObjectDoesNotExist('Template', body.zone.template, 'body');

  if (collection.domain?.customer === principal.customer) throw new ObjectExists(`${domainName} is already in your account.`);
  if (collection.lock?.customer === principal.customer)
    throw new ObjectStatusProhibitsOperation(`A transfer of ${domainName} is already pending.`);
  // A name another account holds or is transferring answers exactly like a registry lock (contract section 1).
  if (collection.domain || collection.lock) throw transferProhibited(domainName);
  const foreignZone = collection.zone !== undefined && collection.zone.customer !== principal.customer;
  if (foreignZone && body.zone !== undefined) {
    throw new ObjectStatusProhibitsOperation(`A zone for ${domainName} cannot be provisioned: the name's zone is managed elsewhere.`);
  }

  const gateway = await registryGateway();
  const candidate = await gateway.prepareTransfer({
    domainName,
    registry,
    ...(body.authcode !== undefined ? { authcode: body.authcode } : {}),
  });

  const plan = planTransfer({
    body,
    candidate,
    periodMonths: period,
    privacyProtect: body.privacyProtect ?? customer.privacyProtect,
    existingZone: foreignZone ? undefined : collection.zone,
    designatedAgent: designatedAgentOf(body.designatedAgent ?? 'NONE', candidate),
  });
  if (plan.expiry.after > toWireTime(addMonths(at, maxYearsAhead * 12))) {
    throw new ValidationError(`The transfer would extend ${domainName} beyond ${maxYearsAhead} years from now.`, [
      { field: 'period', message: `would put the expiry (${plan.expiry.after}) more than ${maxYearsAhead} years ahead`, value: period },
    ]);
  }
  const quote = await priceTransfer(list, found.extension, domainName, plan, candidate, at);
  return {
    registry,
    extension: found.extension,
    plan,
    quote: { ...quote, plan },
    list,
    gateway,
    processCounter: snapshot.processCounter,
    zoneCounter: snapshot.zoneCounter,
    ...(collection.zone ? { existingZone: collection.zone } : {}),
    ...(template ? { template } : {}),
  };
}

/**
 * The transfer itself (never a quote): the registry first, then one transaction that records the
 * process with the registry's first answer applied, together with the name's pending state or, when
 * the registry completed it at once, the domain and its zone. Nothing of ours is written before the
 * registry has taken the transfer, so a failure at any step leaves nothing behind and a retry starts
 * afresh: the registry gateway answers a repeated request for a transfer it already holds for us
 * with that transfer's state (shared/registry/gateway.ts).
 */
async function start(call: TransferCall): Promise<StartedProcess<TransferResult>> {
  const at = now();
  const ev = await evaluate(call, at);
  const { body, principal, domainName } = call;
  assertAcknowledged(ev.quote, ev.list, body.billables, at);

  const requestedDate = toWireTime(at);
  const state = await ev.gateway.requestTransfer({
    domainName,
    registry: ev.registry,
    requestedDate,
    periodMonths: ev.plan.periodMonths,
    ...(body.authcode !== undefined ? { authcode: body.authcode } : {}),
  });

  const processOf = (id: number): ProcessRecord => {
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
      history: [],
    };
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
      billables: ev.quote.quote.billables ?? [],
      details,
    };
  };
  // The move for the claimed ids; on completion with the zone decided from `existingZone`.
  const completing = state.status === 'completed';
  const record = (existingZone: ZoneRecord | undefined) =>
    recordNewTransfer(
      { process: ev.processCounter, ...(completing && createsZone(ev.plan, existingZone) ? { zone: ev.zoneCounter } : {}) },
      (ids) => {
        const zone = completing
          ? zoneEffectOf(ev.plan, domainName, principal.customer, requestedDate, existingZone, ev.template, ids.zone)
          : undefined;
        const move = moveOf(processOf(ids.process), state, at, zone, true);
        if (!move) throw new Error(`The registry's first answer for ${domainName} changed nothing`);
        return move;
      },
    );

  let outcome = await record(ev.existingZone);
  if ('conflict' in outcome && outcome.conflict === 'zone') {
    // The name's zone changed between the read and the write (rare): decide the zone again from a fresh read.
    outcome = await record((await readDomainCollection(domainName)).zone);
  }
  if ('conflict' in outcome) {
    const { conflict } = outcome;
    // Lost a race: the winner's state decides the answer, as in evaluate().
    const winner = await readDomainCollection(domainName);
    if (winner.domain?.customer === principal.customer) throw new ObjectExists(`${domainName} is already in your account.`);
    if (conflict === 'pending' && (winner.lock === undefined || winner.lock.customer === principal.customer)) {
      throw new ObjectStatusProhibitsOperation(`A transfer of ${domainName} is already pending.`);
    }
    throw transferProhibited(domainName);
  }
  const { process } = outcome.move;
  const result = transferResultOf(process);
  return { processId: process.id, completed: result.status === 'completed', view: result };
}
