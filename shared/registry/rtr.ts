import { createHash, randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { getProcess } from '../db/repositories/processes.ts';
import { listRegistrationIntentsOf, type RegistrationIntent } from '../db/repositories/registration-intents.ts';
import {
  clearTransferIntent,
  listTransferIntents,
  listTransferIntentsOf,
  recordTransferIntent,
  type TransferIntent,
} from '../db/repositories/transfer-intents.ts';
import { readDomainCollection } from '../db/repositories/transfers.ts';
import { ObjectDoesNotExist, ObjectExists, ObjectStatusProhibitsOperation, ProviderUnavailable, ValidationError } from '../errors.ts';
import { logger } from '../logger.ts';
import { type ContactRecord, defaultBrand } from '../model/contact.ts';
import { KeyData } from '../model/domain.ts';
import { ProviderMetadata, TldMetadata, tldProviderFields } from '../model/provider.ts';
import { isFinal, type TransferStatus, transferDetailsOf, transferStatuses } from '../model/transfer.ts';
import { addMonths, toWireTime } from '../time.ts';
import {
  type DomainChange,
  type DomainLifecycleRequest,
  type IntentSummary,
  type RegistrationOrder,
  type RegistrationState,
  type RegistryCharge,
  type RegistryGateway,
  type RegistryTransferState,
  type TransferCandidate,
  type TransferOrder,
  type TransferReference,
  transferProhibited,
} from './gateway.ts';
import { malformedAnswer, type RtrSettings, UpstreamRefusal, upstreamCall } from './rtr-client.ts';

/**
 * The registry gateway through an upstream Realtime Register account (REST API v2): the upstream
 * does the registry work under the reseller's customer handle (`RTR_CUSTOMER`), this service
 * prices, validates, authorizes and tracks. docs/transfer.md ("Through an upstream account")
 * says what each call asks upstream and how every refusal and fault is answered.
 */

const Billable = v.object({
  product: v.string(),
  action: v.string(),
  quantity: v.number(),
  amount: v.number(),
});
const QuoteAnswer = v.object({
  quote: v.object({ total: v.number(), currency: v.optional(v.string()), billables: v.optional(v.array(Billable)) }),
  // Not part of RTR's answer: this service as an upstream also tells its plan (the name's expiry, name servers, DNSSEC).
  plan: v.optional(
    v.object({
      expiry: v.optional(v.object({ before: v.string() })),
      nameServers: v.optional(v.object({ before: v.array(v.string()) })),
      dnssec: v.optional(
        v.object({
          before: v.array(KeyData),
        }),
      ),
    }),
  ),
});
const TransferAnswer = v.object({
  status: v.picklist(transferStatuses),
  processId: v.optional(v.number()),
  actionDate: v.optional(v.string()),
  expiryDate: v.optional(v.string()),
});
const PriceAnswer = v.object({
  prices: v.array(v.object({ product: v.string(), action: v.string(), currency: v.string(), price: v.number() })),
  promos: v.optional(
    v.array(
      v.object({
        product: v.string(),
        action: v.string(),
        currency: v.string(),
        price: v.number(),
        fromDate: v.string(),
        endDate: v.string(),
        active: v.boolean(),
      }),
    ),
  ),
});
const ProcessPage = v.object({
  entities: v.array(v.object({ id: v.number(), status: v.string(), customer: v.optional(v.string()), createdDate: v.string() })),
});

const RestorePage = v.object({
  entities: v.array(v.object({ createdDate: v.string(), billables: v.array(Billable) })),
});

const RegistrationAnswer = v.object({
  domainName: v.string(),
  expiryDate: v.optional(v.string()),
});
const UpstreamDomain = v.object({ domainName: v.string(), expiryDate: v.string(), createdDate: v.string() });
const UpstreamProcess = v.object({ id: v.number(), status: v.string() });
const ExpiryAnswer = v.object({ expiryDate: v.string() });
const DomainState = v.object({ expiryDate: v.string(), status: v.array(v.string()) });

const CheckAnswer = v.object({
  available: v.boolean(),
  reason: v.optional(v.string()),
  premium: v.optional(v.boolean()),
  currency: v.optional(v.string()),
  price: v.optional(v.number()),
  renewPrice: v.optional(v.number()),
});

function parsed<T extends v.GenericSchema>(schema: T, call: string, body: unknown): v.InferOutput<T> {
  const result = v.safeParse(schema, body);
  if (!result.success) throw malformedAnswer(call);
  return result.output;
}

/** How long the upstream price list is kept in memory (it tells which quoted lines are the account's plain prices). */
const priceListSeconds = 300;
/** How far back a completed upstream transfer of the name counts as ours that lost its answer. */
const adoptCompletedHours = 24;
/** How old an intent is before the poller settles it: its request (10 s at most) is long over. */
const intentSettleSeconds = 600;
/** Clock skew allowed between our request time and the upstream's createdDate. */
const skewSeconds = 60;
/** How long after its intent a request can still reach the upstream: a request lives at most its function's timeout (10 s). */
const requestWindowSeconds = 30;

/** What a transfer request asked of the upstream that a retry must ask again to adopt its transfer: the auth code and the period. */
interface AskedFor {
  customer: string;
  authcode?: string | undefined;
  periodMonths?: number | undefined;
}

/** A salted digest of what was asked (the auth code never stored as it is). */
function digestOf(salt: string, asked: AskedFor): string {
  return createHash('sha256')
    .update(salt)
    .update(JSON.stringify([asked.customer, asked.authcode ?? null, asked.periodMonths ?? null]))
    .digest('base64url');
}

/**
 * The fields an upstream refusal names, as our violations: only names that look like a field
 * path (the upstream's text is never echoed), at most ten.
 */
function refusedFields(fields: readonly string[]): { field: string; message: string }[] {
  return fields
    .filter((f) => /^[A-Za-z][A-Za-z0-9.[\]]{0,60}$/.test(f))
    .slice(0, 10)
    .map((field) => ({ field, message: 'is refused by the registry' }));
}

/**
 * Whether the upstream transfer created at `createdDate` is the one a request of `asked` started:
 * of the name's open intents, those whose request could have reached the upstream then (from
 * `skewSeconds` before the intent to `requestWindowSeconds` after it) are all the caller's, and one
 * of them asked for the same thing. A transfer no intent explains (started upstream by hand), or
 * one another customer's request may have started as well, is never adopted.
 */
export function adopts(intents: readonly TransferIntent[], createdDate: string, asked: AskedFor): boolean {
  const candidates = intents.filter((intent) => explains(intent.requestedDate, createdDate));
  if (candidates.length === 0 || candidates.some((intent) => intent.customer !== asked.customer)) return false;
  return candidates.some(
    (intent) => intent.salt !== undefined && intent.requestDigest !== undefined && digestOf(intent.salt, asked) === intent.requestDigest,
  );
}

/** Whether a request made at `requestedDate` could have reached the upstream when it created something at `createdDate`. */
function explains(requestedDate: string, createdDate: string): boolean {
  const created = Date.parse(createdDate);
  const requested = Date.parse(requestedDate);
  return created >= requested - skewSeconds * 1000 && created <= requested + (requestWindowSeconds + skewSeconds) * 1000;
}

export function rtrRegistry(settings: RtrSettings): RegistryGateway {
  const customer = encodeURIComponent(settings.customer);
  let prices: { at: number; list: v.InferOutput<typeof PriceAnswer> } | undefined;

  /** The account's price list upstream, cached priceListSeconds. */
  async function upstreamPrices(): Promise<v.InferOutput<typeof PriceAnswer>> {
    if (prices && Date.now() - prices.at < priceListSeconds * 1000) return prices.list;
    const answer = await upstreamCall(settings, 'pricelist', 'GET', `/v2/customers/${customer}/pricelist`);
    prices = { at: Date.now(), list: parsed(PriceAnswer, 'pricelist', answer.body) };
    return prices.list;
  }

  /**
   * The quoted lines the upstream wants acknowledged: those that are not the account's own
   * effective price upstream (a premium, a restore fee, another currency), the rule of contract 4.
   */
  async function chargesNeedingAcknowledgment(currency: string | undefined, billables: v.InferOutput<typeof Billable>[]) {
    if (billables.length === 0 || currency === undefined) return [];
    const list = await upstreamPrices();
    const now = Date.now();
    return billables.filter((b) => {
      const promo = list.promos?.find(
        (p) => p.active && p.product === b.product && p.action === b.action && Date.parse(p.fromDate) <= now && now < Date.parse(p.endDate),
      );
      const own = promo ?? list.prices.find((p) => p.product === b.product && p.action === b.action);
      return !own || own.currency !== currency || own.price !== b.amount;
    });
  }

  /** The upstream's transfer process of the name, running or completed lately, if it holds one. */
  async function heldTransfer(domainName: string): Promise<string | undefined> {
    return (await heldProcess(domainName))?.id;
  }

  /**
   * The upstream's transfer of the name that `asked`'s own earlier request started (its answer
   * lost, or its commit failed), if the upstream holds one: undefined when it holds none. A
   * transfer it holds for anyone else (another customer of this service, or one started upstream
   * by hand) is refused as a name held elsewhere is: nothing is adopted, recorded or charged.
   * `except` is the caller's own intent of this very request, which did not start it.
   */
  async function ownHeldTransfer(domainName: string, asked: AskedFor, except?: string): Promise<string | undefined> {
    const held = await heldProcess(domainName);
    if (held === undefined) return undefined;
    const intents = (await listTransferIntentsOf(domainName)).filter(
      (intent) => !(intent.requestedDate === except && intent.customer === asked.customer),
    );
    if (adopts(intents, held.createdDate, asked)) return held.id;
    throw transferProhibited(domainName);
  }

  /** The upstream's transfer process of the name (its id, process status and creation), running or completed since `since` (default: lately). */
  async function heldProcess(domainName: string, since?: number): Promise<{ id: string; status: string; createdDate: string } | undefined> {
    const query = new URLSearchParams({
      identifier: domainName,
      type: 'domain',
      action: 'transfer',
      'status:in': 'RUNNING,COMPLETED',
      order: '-createdDate',
      limit: '5',
    });
    const answer = await upstreamCall(settings, 'processes', 'GET', `/v2/processes?${query}`);
    const page = parsed(ProcessPage, 'processes', answer.body);
    const from = since ?? Date.now() - adoptCompletedHours * 3600_000;
    const held = page.entities.find(
      (p) =>
        (p.customer === undefined || p.customer === settings.customer) &&
        (p.status === 'RUNNING'
          ? since === undefined || Date.parse(p.createdDate) >= from
          : p.status === 'COMPLETED' && Date.parse(p.createdDate) >= from),
    );
    return held ? { id: String(held.id), status: held.status, createdDate: held.createdDate } : undefined;
  }

  /** Whether this service recorded the upstream transfer `id` of the name: its pending transfer names it, or an account holds the name. */
  async function recorded(domainName: string, id: string): Promise<boolean> {
    const { domain, lock } = await readDomainCollection(domainName);
    if (domain) return true;
    if (!lock) return false;
    const process = await getProcess(lock.processId, lock.customer, true);
    return process !== undefined && transferDetailsOf(process).registryReference === id;
  }

  /** Who asks and what, as an intent records it. */
  function askedBy(request: { customer?: string; authcode?: string; periodMonths?: number }): AskedFor {
    return { customer: request.customer ?? '', authcode: request.authcode, periodMonths: request.periodMonths };
  }

  function transferBody(request: { authcode?: string; periodMonths?: number; order?: TransferOrder }) {
    const order = request.order;
    return {
      customer: settings.customer,
      ...(order ? { registrant: order.registrant, contacts: order.contacts } : {}),
      ...(request.authcode !== undefined ? { authcode: request.authcode } : {}),
      ...(request.periodMonths !== undefined ? { period: request.periodMonths } : {}),
      ...(order?.ns !== undefined ? { ns: order.ns } : {}),
      ...(order?.keyData !== undefined ? { keyData: order.keyData } : {}),
    };
  }

  /** The upstream's refusals of a transfer of `domainName` in our own words (anything else: 503, logged). */
  function refusalOf(error: unknown, call: string, domainName: string, order: TransferOrder | undefined): unknown {
    if (!(error instanceof UpstreamRefusal)) return error;
    const handles = new Set([order?.registrant, ...(order?.contacts ?? []).map((c) => c.handle)]);
    switch (error.type) {
      case 'ObjectDoesNotExist':
        if (error.objectType === 'Contact' && error.identifier !== undefined && handles.has(error.identifier)) {
          return new ValidationError(`Contact '${error.identifier}' is not known to the registry account; create it there first.`, [
            { field: error.identifier === order?.registrant ? 'registrant' : 'contacts', message: 'is not known to the registry account' },
          ]);
        }
        if (error.objectType === 'Domain' || error.objectType === undefined) return new ObjectDoesNotExist('Domain', domainName, 'body');
        break;
      case 'ObjectStatusProhibitsOperation':
      case 'ObjectExists':
        return transferProhibited(domainName);
      case 'ValidationError':
      case 'ConstraintViolationException':
        if (error.fields.includes('authcode')) {
          return new ValidationError('The auth code is not valid for this domain.', [
            { field: 'authcode', message: 'is not valid for this domain' },
          ]);
        }
        return new ValidationError(`The registry refuses the transfer of ${domainName} as requested.`, refusedFields(error.fields));
      case 'BillableAcknowledgmentNeededException':
        return new ValidationError(`The registry's charges for ${domainName} changed since the quote; ask for a new quote.`, [
          { field: 'billables', message: 'no longer cover what the registry charges' },
        ]);
    }
    logger.warn('registry upstream refusal not mapped', { call, status: error.status, upstreamType: error.type });
    return new ProviderUnavailable('The registry refused the request unexpectedly; retry later.', 30);
  }

  async function stateOf(reference: TransferReference, call: string): Promise<RegistryTransferState & { registryReference: string }> {
    const id = reference.registryReference ?? (await heldTransfer(reference.domainName));
    if (id === undefined) throw new Error(`The registry account holds no transfer of ${reference.domainName}`);
    const answer = await upstreamCall(
      settings,
      call,
      'GET',
      `/v2/domains/${encodeURIComponent(reference.domainName)}/transfer/${encodeURIComponent(id)}`,
    );
    return { ...stateFrom(parsed(TransferAnswer, call, answer.body), call), registryReference: id };
  }

  function stateFrom(answer: v.InferOutput<typeof TransferAnswer>, call: string): RegistryTransferState {
    const status: TransferStatus = answer.status;
    if (status === 'completed') {
      if (answer.expiryDate === undefined) throw malformedAnswer(call);
      return { status, domain: { expiryDate: answer.expiryDate } };
    }
    if (isFinal(status)) return { status, reason: `The registry answered '${status}'.` };
    return { status, ...(answer.actionDate !== undefined ? { actionDate: answer.actionDate } : {}) };
  }

  /** The upstream's refusals of a change of `domainName` in our own words (anything else: 503, logged). */
  function changeRefusalOf(error: unknown, change: DomainChange): unknown {
    if (!(error instanceof UpstreamRefusal)) return error;
    const handles = new Set([change.registrant, ...(change.contacts ?? []).map((c) => c.handle)]);
    switch (error.type) {
      case 'ObjectDoesNotExist':
        if (error.objectType === 'Contact' && error.identifier !== undefined && handles.has(error.identifier)) {
          return new ValidationError(`Contact '${error.identifier}' is not known to the registry account; create it there first.`, [
            { field: error.identifier === change.registrant ? 'registrant' : 'contacts', message: 'is not known to the registry account' },
          ]);
        }
        return new ObjectDoesNotExist('Domain', change.domainName);
      case 'ObjectStatusProhibitsOperation':
        return new ObjectStatusProhibitsOperation(`The registry refuses to change ${change.domainName}: its status prohibits it.`);
      case 'ValidationError':
      case 'ConstraintViolationException':
        return new ValidationError(`The registry refuses the change of ${change.domainName} as requested.`, refusedFields(error.fields));
    }
    logger.warn('registry upstream refusal not mapped', { call: 'update', status: error.status, upstreamType: error.type });
    return new ProviderUnavailable('The registry refused the request unexpectedly; retry later.', 30);
  }

  /** The upstream's refusals of a contact in our own words (anything else: 503, logged). */
  function contactRefusalOf(error: unknown, handle: string): unknown {
    if (!(error instanceof UpstreamRefusal)) return error;
    if (['ValidationError', 'ConstraintViolationException', 'ContactUpdateValidationError'].includes(error.type)) {
      return new ValidationError(
        `The registry refuses contact '${handle}' as it is.`,
        refusedFields(error.fields.length > 0 ? error.fields : ['contact']),
      );
    }
    logger.warn('registry upstream refusal not mapped', { call: 'contact', status: error.status, upstreamType: error.type });
    return new ProviderUnavailable('The registry refused the request unexpectedly; retry later.', 30);
  }

  /** A contact's fields as the upstream's create and update take them; on an update, `""` removes what the contact no longer has. */
  function contactBody(contact: ContactRecord, update: boolean) {
    const optional = (value: string | undefined) => (value !== undefined ? value : update ? '' : undefined);
    const body = {
      ...(contact.brand !== defaultBrand ? { brand: contact.brand } : {}),
      name: contact.name,
      organization: optional(contact.organization),
      addressLine: contact.addressLine,
      postalCode: contact.postalCode,
      city: contact.city,
      state: optional(contact.state),
      country: contact.country,
      email: contact.email,
      voice: contact.voice,
      fax: optional(contact.fax),
      ...(contact.disclosedFields !== undefined ? { disclosedFields: contact.disclosedFields } : {}),
    };
    return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  }

  /** The body of a registration upstream: the upstream customer, the order as it is, the period. */
  function registrationBody(periodMonths: number, order: RegistrationOrder) {
    return { customer: settings.customer, period: periodMonths, ...order };
  }

  /**
   * The upstream's domain of the name, when the upstream account holds it and registered it
   * lately (within adoptCompletedHours): the registration of an earlier request of ours whose
   * answer or commit was lost. The caller has checked that no account of this service holds it.
   */
  async function ownRegisteredDomain(domainName: string): Promise<v.InferOutput<typeof UpstreamDomain> | undefined> {
    try {
      const answer = await upstreamCall(settings, 'domain', 'GET', `/v2/domains/${encodeURIComponent(domainName)}`);
      const domain = parsed(UpstreamDomain, 'domain', answer.body);
      return Date.now() - Date.parse(domain.createdDate) <= adoptCompletedHours * 3600_000 ? domain : undefined;
    } catch (error) {
      if (error instanceof UpstreamRefusal && (error.status === 404 || error.type === 'ObjectDoesNotExist')) return undefined;
      throw error;
    }
  }

  /**
   * The upstream's domain of the name when the request that registered it was the caller's own
   * (`customer`, `periodMonths`): registered lately upstream, at a time only the name's
   * registration intents of that customer can explain (as `adopts` decides for transfers), one of
   * them for the same period. Its premium as that request was quoted comes with it. A domain no
   * intent explains (registered upstream by hand, or by another customer's request) is adopted by
   * nobody: the name is registered, as any other.
   */
  async function ownRegistration(
    domainName: string,
    customer: string,
    periodMonths: number,
  ): Promise<{ domain: v.InferOutput<typeof UpstreamDomain>; premium?: RegistrationIntent['premium'] } | undefined> {
    const domain = await ownRegisteredDomain(domainName);
    if (domain === undefined) return undefined;
    const intents = (await listRegistrationIntentsOf(domainName)).filter((intent) => explains(intent.requestedDate, domain.createdDate));
    if (intents.length === 0 || intents.some((intent) => intent.customer !== customer)) return undefined;
    const own = intents.find((intent) => intent.periodMonths === periodMonths);
    if (own === undefined) return undefined;
    return { domain, ...(own.premium ? { premium: own.premium } : {}) };
  }

  /**
   * The upstream's registration process of the name that is still running (the registry has not
   * answered it yet) when the request that started it was the caller's own, by the rule of
   * ownRegistration: created at a time only the name's registration intents of that customer can
   * explain, one of them for the same period. Its premium as that request was quoted comes with it.
   */
  async function ownPendingRegistration(
    domainName: string,
    customer: string,
    periodMonths: number,
  ): Promise<{ id: string; premium?: RegistrationIntent['premium'] } | undefined> {
    const query = new URLSearchParams({
      identifier: domainName,
      type: 'domain',
      action: 'create',
      status: 'RUNNING',
      order: '-createdDate',
      limit: '5',
    });
    const answer = await upstreamCall(settings, 'processes', 'GET', `/v2/processes?${query}`);
    const running = parsed(ProcessPage, 'processes', answer.body).entities.filter(
      (p) => p.status === 'RUNNING' && (p.customer === undefined || p.customer === settings.customer),
    );
    if (running.length === 0) return undefined;
    const intents = await listRegistrationIntentsOf(domainName);
    for (const process of running) {
      const explaining = intents.filter((intent) => explains(intent.requestedDate, process.createdDate));
      if (explaining.length === 0 || explaining.some((intent) => intent.customer !== customer)) continue;
      const own = explaining.find((intent) => intent.periodMonths === periodMonths);
      if (own) return { id: String(process.id), ...(own.premium ? { premium: own.premium } : {}) };
    }
    return undefined;
  }

  /** The upstream's refusals of a registration of `domainName` in our own words (anything else: 503, logged). */
  function registrationRefusalOf(error: unknown, call: string, domainName: string, order: RegistrationOrder): unknown {
    if (!(error instanceof UpstreamRefusal)) return error;
    const handles = new Set([order.registrant, ...order.contacts.map((c) => c.handle)]);
    switch (error.type) {
      case 'ObjectExists':
        return new ObjectExists(`${domainName} is already registered.`);
      case 'ObjectDoesNotExist':
        if (error.objectType === 'Contact' && error.identifier !== undefined && handles.has(error.identifier)) {
          return new ValidationError(`Contact '${error.identifier}' is not known to the registry account; create it there first.`, [
            { field: error.identifier === order.registrant ? 'registrant' : 'contacts', message: 'is not known to the registry account' },
          ]);
        }
        break;
      case 'ObjectStatusProhibitsOperation':
        return new ObjectStatusProhibitsOperation(`The registry refuses to register ${domainName}.`);
      case 'ValidationError':
      case 'ConstraintViolationException':
        return new ValidationError(`The registry refuses the registration of ${domainName} as requested.`, refusedFields(error.fields));
      case 'BillableAcknowledgmentNeededException':
        return new ValidationError(`The registry's charges for ${domainName} changed since the quote; ask for a new quote.`, [
          { field: 'billables', message: 'no longer cover what the registry charges' },
        ]);
    }
    logger.warn('registry upstream refusal not mapped', { call, status: error.status, upstreamType: error.type });
    return new ProviderUnavailable('The registry refused the request unexpectedly; retry later.', 30);
  }

  /** The upstream's refusal of a renewal, deletion or restore of `domainName` in our own words (anything else: 503, logged). */
  function lifecycleRefusalOf(error: unknown, call: string, domainName: string, what: string): unknown {
    if (!(error instanceof UpstreamRefusal)) return error;
    switch (error.type) {
      case 'ObjectDoesNotExist':
        return new ObjectDoesNotExist('Domain', domainName);
      case 'ObjectStatusProhibitsOperation':
        return new ObjectStatusProhibitsOperation(`The registry refuses to ${what} ${domainName}: its status prohibits it.`);
      case 'ValidationError':
      case 'ConstraintViolationException':
        return new ValidationError(`The registry refuses to ${what} ${domainName} as requested.`, refusedFields(error.fields));
      case 'BillableAcknowledgmentNeededException':
        return new ValidationError(`The registry's charges for ${domainName} changed since the quote; ask for a new quote.`, [
          { field: 'billables', message: 'no longer cover what the registry charges' },
        ]);
    }
    logger.warn('registry upstream refusal not mapped', { call, status: error.status, upstreamType: error.type });
    return new ProviderUnavailable('The registry refused the request unexpectedly; retry later.', 30);
  }

  /** How long a pending upstream registration waits before the poller asks again. */
  function nextAsk(): string {
    return toWireTime(Date.now() + 60_000);
  }

  /** A registration pending upstream under its process `id`. */
  function stillPending(id: string): RegistrationState {
    return { status: 'pending', actionDate: nextAsk(), registryReference: id };
  }

  /** The domain as the upstream holds it now (its expiry and statuses), or undefined when it holds none. */
  async function upstreamDomain(domainName: string): Promise<v.InferOutput<typeof DomainState> | undefined> {
    try {
      const answer = await upstreamCall(
        settings,
        'domain',
        'GET',
        `/v2/domains/${encodeURIComponent(domainName)}?fields=expiryDate,status`,
      );
      return parsed(DomainState, 'domain', answer.body);
    } catch (error) {
      if (error instanceof UpstreamRefusal && error.type === 'ObjectDoesNotExist') return undefined;
      throw error;
    }
  }

  /**
   * The upstream's quote of a renewal or restore, checked before anything is submitted: lines of the
   * operation's own action that are not the account's plain price upstream are acknowledged as
   * quoted (never more); any other charge is refused.
   */
  async function acknowledgedCharges(
    path: string,
    body: Record<string, unknown>,
    call: string,
    domainName: string,
    action: string,
    what: string,
    /** Where ours limits them: whether a line of `action` the upstream wants acknowledged (in `currency`) is within what we charged. */
    within?: (line: { amount: number }, currency: string | undefined) => boolean,
  ) {
    const { currency, lines: extra } = await quotedCharges(path, body, call, domainName, action, what);
    if (within && extra.some((b) => !within(b, currency))) {
      throw new ValidationError(`The registry's charges for ${domainName} changed since the quote; ask for a new quote.`, [
        { field: 'billables', message: 'no longer cover what the registry charges' },
      ]);
    }
    return extra.map(({ product, action: a, quantity, amount }) => ({ product, action: a, quantity, amount }));
  }

  /**
   * The upstream's quote of a renewal or restore: its currency and the lines that are not the
   * account's plain price upstream, all of the operation's own action (any other charge is refused).
   */
  async function quotedCharges(
    path: string,
    body: Record<string, unknown>,
    call: string,
    domainName: string,
    action: string,
    what: string,
  ): Promise<{ currency: string | undefined; lines: v.InferOutput<typeof Billable>[] }> {
    let quote: v.InferOutput<typeof QuoteAnswer>;
    try {
      quote = parsed(QuoteAnswer, call, (await upstreamCall(settings, call, 'POST', `${path}?quote=true`, body)).body);
    } catch (error) {
      throw lifecycleRefusalOf(error, call, domainName, what);
    }
    const extra = await chargesNeedingAcknowledgment(quote.quote.currency, quote.quote.billables ?? []);
    if (extra.some((b) => b.action !== action)) {
      throw new ObjectStatusProhibitsOperation(
        `The registry charges more than a ${action.toLowerCase()} for ${domainName} (${[...new Set(extra.map((b) => b.action))].join(', ')}); it cannot be done through this service.`,
      );
    }
    return { currency: quote.quote.currency, lines: extra };
  }

  /**
   * The restore fee the upstream charged for the restore of the name it completed since `since`
   * (our earlier request, its answer lost): the `RESTORE` line of its process there beyond the
   * account's plain price, in that price's currency. Undefined when it was charged the plain price
   * or no such restore is found.
   */
  async function restoredFee(domainName: string, since: string): Promise<{ currency: string; amount: number } | undefined> {
    const query = new URLSearchParams({
      identifier: domainName,
      type: 'domain',
      action: 'restore',
      status: 'COMPLETED',
      order: '-createdDate',
      limit: '1',
    });
    const answer = await upstreamCall(settings, 'processes', 'GET', `/v2/processes?${query}`);
    const [restore] = parsed(RestorePage, 'processes', answer.body).entities;
    if (restore === undefined || Date.parse(restore.createdDate) < Date.parse(since) - skewSeconds * 1000) return undefined;
    const line = restore.billables.find((b) => b.action === 'RESTORE');
    const plain = line && (await upstreamPrices()).prices.find((p) => p.product === line.product && p.action === 'RESTORE');
    if (!line || !plain) return undefined;
    const [fee] = await chargesNeedingAcknowledgment(plain.currency, [line]);
    return fee ? { currency: plain.currency, amount: fee.amount } : undefined;
  }

  async function renewUpstream(request: DomainLifecycleRequest & { periodMonths: number; premium?: { currency: string; amount: number } }) {
    const { domainName, currentExpiryDate, periodMonths } = request;
    const path = `/v2/domains/${encodeURIComponent(domainName)}/renew`;
    const after = toWireTime(addMonths(new Date(currentExpiryDate), periodMonths));
    const held = await upstreamDomain(domainName);
    if (held === undefined) throw new ObjectDoesNotExist('Domain', domainName);
    // Renewed already by an earlier request of ours whose answer was lost: that renewal, not a second.
    if (toWireTime(held.expiryDate) === after) return { expiryDate: after };
    // A premium line upstream must be within the premium renewal price our quote charged (none: the renewal was charged plain).
    const premium = request.premium;
    const billables = await acknowledgedCharges(
      path,
      { period: periodMonths },
      'renew-quote',
      domainName,
      'RENEW',
      'renew',
      (line, currency) => premium !== undefined && currency === premium.currency && line.amount <= premium.amount,
    );
    try {
      const answer = await upstreamCall(settings, 'renew', 'POST', path, {
        period: periodMonths,
        expiryDate: currentExpiryDate,
        ...(billables.length > 0 ? { billables } : {}),
      });
      return { expiryDate: toWireTime(parsed(ExpiryAnswer, 'renew', answer.body).expiryDate) };
    } catch (error) {
      if (error instanceof UpstreamRefusal) {
        const again = await upstreamDomain(domainName);
        if (again && toWireTime(again.expiryDate) === after) return { expiryDate: after };
        if (again && toWireTime(again.expiryDate) !== currentExpiryDate) {
          throw new ObjectStatusProhibitsOperation(`The registry refuses to renew ${domainName}: its expiry is not ${currentExpiryDate}.`);
        }
      }
      throw lifecycleRefusalOf(error, 'renew', domainName, 'renew');
    }
  }

  return {
    /** `GET /v2/domains/{name}/check` upstream, its answer as it is (the upstream's prices and currency). */
    async checkDomain({ domainName, languageCode, renewPrice }) {
      const query = new URLSearchParams({ ...(languageCode ? { languageCode } : {}), ...(renewPrice ? { renewPrice: 'true' } : {}) });
      const path = `/v2/domains/${encodeURIComponent(domainName)}/check${query.size > 0 ? `?${query}` : ''}`;
      try {
        const answer = await upstreamCall(settings, 'check', 'GET', path);
        return parsed(CheckAnswer, 'check', answer.body);
      } catch (error) {
        if (error instanceof UpstreamRefusal && ['ValidationError', 'ConstraintViolationException'].includes(error.type)) {
          throw new ValidationError(`The registry cannot check ${domainName}.`, [
            { field: 'domainName', message: 'cannot be checked at its registry' },
          ]);
        }
        if (error instanceof UpstreamRefusal) {
          logger.warn('registry upstream refusal not mapped', { call: 'check', status: error.status, upstreamType: error.type });
          throw new ProviderUnavailable('The registry refused the request unexpectedly; retry later.', 30);
        }
        throw error;
      }
    },

    /**
     * `POST /v2/domains/{name}/update` upstream with the fields that change (the status as the
     * whole list wanted); a new auth code asked for (`''`) is then read back with a GET of the domain.
     */
    async updateDomain(change) {
      const { domainName, registry: _registry, current: _current, ...fields } = change;
      const path = `/v2/domains/${encodeURIComponent(domainName)}`;
      try {
        await upstreamCall(settings, 'update', 'POST', `${path}/update`, fields);
        if (change.authcode !== '') return change.authcode !== undefined ? { authcode: change.authcode } : {};
        const answer = await upstreamCall(settings, 'domain', 'GET', `${path}?fields=authcode`);
        const { authcode } = parsed(v.object({ authcode: v.optional(v.string()) }), 'domain', answer.body);
        return authcode !== undefined ? { authcode } : {};
      } catch (error) {
        throw changeRefusalOf(error, change);
      }
    },

    async prepareTransfer(request) {
      const { domainName, registry } = request;
      const path = `/v2/domains/${encodeURIComponent(domainName)}/transfer?quote=true`;
      let quote: v.InferOutput<typeof QuoteAnswer>;
      try {
        quote = parsed(QuoteAnswer, 'quote', (await upstreamCall(settings, 'quote', 'POST', path, transferBody(request))).body);
      } catch (error) {
        // A transfer the caller's own earlier request started (its answer lost) is no lock; anyone else's is.
        if (error instanceof UpstreamRefusal && ['ObjectStatusProhibitsOperation', 'ObjectExists'].includes(error.type)) {
          const held = await ownHeldTransfer(domainName, askedBy(request));
          if (held !== undefined)
            return {
              domainName,
              registry,
              ns: [],
              keyData: [],
              designatedAgentAllowed: false,
              registrantInteraction: false,
              heldReference: held,
            };
        }
        throw refusalOf(error, 'quote', domainName, request.order);
      }
      const { currency, billables = [] } = quote.quote;
      const extra = await chargesNeedingAcknowledgment(currency, billables);
      const charges: RegistryCharge[] = extra.map((b) => ({ ...b, currency: currency as string }));
      const premiumLine = charges.find((c) => c.action === 'TRANSFER');
      const premium =
        premiumLine && (premiumLine.currency === 'EUR' || premiumLine.currency === 'USD')
          ? { currency: premiumLine.currency as 'EUR' | 'USD', amount: premiumLine.amount }
          : undefined;
      const plan = quote.plan;
      const candidate: TransferCandidate = {
        domainName,
        registry,
        ...(plan?.expiry ? { expiryDate: plan.expiry.before } : {}),
        ns: plan?.nameServers?.before ?? [],
        keyData: plan?.dnssec?.before ?? [],
        ...(premium ? { premium } : {}),
        // A designated agent is not passed upstream: the plan says it is ignored (docs/transfer.md).
        designatedAgentAllowed: false,
        registrantInteraction: false,
        ...(charges.length > 0 ? { registryCharges: charges } : {}),
      };
      if (charges.some((c) => c.action !== 'TRANSFER' || c.currency !== premium?.currency)) {
        // A charge the quote cannot show the customer as a premium (a restore fee): refused before anything is submitted.
        throw new ObjectStatusProhibitsOperation(
          `The registry charges more than a transfer for ${domainName} (${[...new Set(charges.map((c) => c.action))].join(', ')}); it cannot be transferred through this service.`,
        );
      }
      return candidate;
    },

    async requestTransfer(reference) {
      const { domainName, candidate } = reference;
      const asked = askedBy(reference);
      // Before submitting: does the upstream already hold this caller's transfer of the name (a retry, a lost answer)?
      const held = candidate?.heldReference ?? (await ownHeldTransfer(domainName, asked));
      if (held !== undefined) return stateOf({ ...reference, registryReference: held }, 'transfer-state');
      // The intent first: should the answer be lost and no retry come, the poller finds it and asks the upstream (reconcile).
      const salt = randomBytes(16).toString('base64url');
      const intent = {
        domainName,
        customer: asked.customer,
        requestedDate: reference.requestedDate,
        salt,
        requestDigest: digestOf(salt, asked),
      };
      await recordTransferIntent(intent);
      const body = {
        ...transferBody({ ...reference, periodMonths: reference.periodMonths }),
        // Exactly the charges the customer acknowledged in our quote, at the upstream's quoted amounts: never more.
        ...(candidate?.registryCharges?.length
          ? { billables: candidate.registryCharges.map(({ product, action, quantity, amount }) => ({ product, action, quantity, amount })) }
          : {}),
      };
      let answer: v.InferOutput<typeof TransferAnswer>;
      let processId: string | undefined;
      try {
        const result = await upstreamCall(settings, 'transfer', 'POST', `/v2/domains/${encodeURIComponent(domainName)}/transfer`, body);
        answer = parsed(TransferAnswer, 'transfer', result.body);
        processId = answer.processId !== undefined ? String(answer.processId) : (result.headers.get('x-process-id') ?? undefined);
      } catch (error) {
        if (error instanceof UpstreamRefusal) {
          // The upstream refused this request: it started nothing, and its intent can explain no transfer.
          await clearTransferIntent(intent).catch((cause: unknown) =>
            logger.warn('transfer intent not cleared', { domainName, error: cause as Error }),
          );
          if (['ObjectStatusProhibitsOperation', 'ObjectExists'].includes(error.type)) {
            const again = await ownHeldTransfer(domainName, asked, intent.requestedDate);
            if (again !== undefined) return stateOf({ ...reference, registryReference: again }, 'transfer-state');
          }
        }
        throw refusalOf(error, 'transfer', domainName, reference.order);
      }
      if (processId === undefined || !/^\d{1,15}$/.test(processId)) throw malformedAnswer('transfer');
      return { ...stateFrom(answer, 'transfer'), registryReference: processId };
    },

    async transferState(reference) {
      return stateOf(reference, 'transfer-state');
    },

    async cancelTransfer(reference) {
      const { registryReference: id } = await stateOf(reference, 'transfer-state');
      try {
        await upstreamCall(settings, 'cancel', 'DELETE', `/v2/processes/${encodeURIComponent(id)}`);
      } catch (error) {
        // Already ended upstream (completed, rejected, failed, cancelled): answered as it stands.
        if (!(error instanceof UpstreamRefusal && error.type === 'ObjectStatusProhibitsOperation')) {
          throw refusalOf(error, 'cancel', reference.domainName, undefined);
        }
      }
      const state = await stateOf({ ...reference, registryReference: id }, 'transfer-state');
      return state.status === 'cancelled' ? { ...state, reason: 'The gaining registrar cancelled the transfer.' } : state;
    },

    /**
     * `DELETE /v2/customers/{RTR_CUSTOMER}/contacts/{handle}`: one the upstream no longer holds is
     * gone already; its refusal while its domains name the contact is ours.
     */
    async forgetContact(handle) {
      try {
        await upstreamCall(settings, 'contact-delete', 'DELETE', `/v2/customers/${customer}/contacts/${encodeURIComponent(handle)}`);
      } catch (error) {
        if (!(error instanceof UpstreamRefusal)) throw error;
        if (error.type === 'ObjectDoesNotExist' || error.status === 404) return;
        if (error.type === 'ObjectStatusProhibitsOperation') {
          throw new ObjectStatusProhibitsOperation('The registry still uses this contact for a domain; it cannot be deleted yet.');
        }
        throw contactRefusalOf(error, handle);
      }
    },

    /**
     * `POST /v2/customers/{RTR_CUSTOMER}/contacts/{handle}` (or `.../update` for one it holds; a
     * create of a handle it already holds, or an update of one it lost, turns into the other), then
     * its properties per registry: `.../{registry}/update`, or `.../{registry}` where it has none yet.
     */
    async mirrorContact(contact, handle, known) {
      const base = `/v2/customers/${customer}/contacts/${encodeURIComponent(handle)}`;
      const create = async () => upstreamCall(settings, 'contact-create', 'POST', base, contactBody(contact, false));
      const update = async () => upstreamCall(settings, 'contact-update', 'POST', `${base}/update`, contactBody(contact, true));
      const refused = (error: unknown, type: string) => error instanceof UpstreamRefusal && error.type === type;
      try {
        let created = false;
        if (known) {
          try {
            await update();
          } catch (error) {
            if (!refused(error, 'ObjectDoesNotExist')) throw error;
            await create();
            created = true;
          }
        } else {
          try {
            await create();
            created = true;
          } catch (error) {
            if (!refused(error, 'ObjectExists')) throw error;
            await update();
          }
        }
        for (const [registry, properties] of Object.entries(contact.properties ?? {})) {
          const path = `${base}/${encodeURIComponent(registry)}`;
          const add = async () => upstreamCall(settings, 'contact-properties', 'POST', path, { properties });
          if (created) await add();
          else {
            try {
              await upstreamCall(settings, 'contact-properties', 'POST', `${path}/update`, { properties });
            } catch (error) {
              if (!refused(error, 'ObjectStatusProhibitsOperation')) throw error;
              await add();
            }
          }
        }
      } catch (error) {
        throw contactRefusalOf(error, contact.handle);
      }
    },

    metadataRegistries: settings.registries,

    /**
     * The intents older than intentSettleSeconds: the upstream is asked whether it holds a transfer
     * of the name started since the intent. None: the request failed before the upstream took it.
     * One this service recorded (a retry adopted it, or the request committed): settled. One it
     * never recorded (the request died after the upstream took it and no retry came): cancelled
     * upstream, so the account is not charged for a transfer nobody knows of; one the upstream
     * already completed cannot be undone and is logged as an error for the operator.
     */
    async reconcile(at) {
      const summary: IntentSummary = { intents: 0, recorded: 0, cancelled: 0, unrecorded: 0 };
      const intents = await listTransferIntents(toWireTime(at.getTime() - intentSettleSeconds * 1000));
      for (const intent of intents) {
        summary.intents++;
        try {
          const held = await heldProcess(intent.domainName, Date.parse(intent.requestedDate) - skewSeconds * 1000);
          if (held && (await recorded(intent.domainName, held.id))) summary.recorded++;
          else if (held?.status === 'RUNNING') {
            try {
              await upstreamCall(settings, 'cancel', 'DELETE', `/v2/processes/${encodeURIComponent(held.id)}`);
            } catch (error) {
              if (!(error instanceof UpstreamRefusal)) throw error;
            }
            summary.cancelled++;
            logger.warn('unrecorded upstream transfer cancelled', { domainName: intent.domainName, customer: intent.customer });
          } else if (held) {
            summary.unrecorded++;
            logger.error('unrecorded upstream transfer completed', { domainName: intent.domainName, customer: intent.customer });
          }
          await clearTransferIntent(intent);
        } catch (error) {
          // Kept for the next run (the upstream may be down).
          logger.warn('transfer intent not settled', { domainName: intent.domainName, error: error as Error });
        }
      }
      return summary;
    },

    async registryMetadata(name) {
      const info = await upstreamCall(settings, 'provider-info', 'GET', `/v2/providers/REGISTRY/${encodeURIComponent(name)}/info`);
      const { metadata } = parsed(v.object({ name: v.string(), metadata: ProviderMetadata }), 'provider-info', info.body);
      const tld = metadata.possibleDomainExtensions?.[0];
      if (tld === undefined) return { metadata };
      const tldAnswer = await upstreamCall(settings, 'tld-info', 'GET', `/v2/tlds/${encodeURIComponent(tld)}/info`);
      const tldInfo = parsed(v.object({ provider: v.string(), metadata: v.record(v.string(), v.unknown()) }), 'tld-info', tldAnswer.body);
      // The TLD's own metadata is what is left of its info besides the registry's rules (shared/registry/tld-info.ts).
      const rest = Object.fromEntries(
        Object.entries(tldInfo.metadata).filter(([key]) => !(tldProviderFields as readonly string[]).includes(key)),
      );
      const tldMetadata = v.safeParse(TldMetadata, rest);
      return tldInfo.provider === name && tldMetadata.success ? { metadata, tldMetadata: tldMetadata.output } : { metadata };
    },

    async resendFoa(reference) {
      const { registryReference: id, status } = await stateOf(reference, 'transfer-state');
      const refused = new ObjectStatusProhibitsOperation(
        `The registry no longer waits for the FOA of the transfer of ${reference.domainName} (it is ${status}).`,
      );
      if (status !== 'pendingfoa') throw refused;
      try {
        await upstreamCall(settings, 'resend', 'POST', `/v2/processes/${encodeURIComponent(id)}/resend`);
      } catch (error) {
        if (error instanceof UpstreamRefusal && error.type === 'ObjectStatusProhibitsOperation') throw refused;
        throw refusalOf(error, 'resend', reference.domainName, undefined);
      }
    },
    /**
     * `POST /v2/domains/{name}?quote=true` upstream, checked before anything is committed: a line
     * that is not the account's plain price upstream must be the premium CREATE, handed back when
     * registering; any other extra charge is refused. A name the upstream account registered lately
     * for an earlier request of ours (the answer lost) is `held`; one it still keeps pending for such
     * a request is `held` with its process id (`pendingReference`).
     */
    async prepareRegistration(request) {
      const { domainName, registry, periodMonths, order } = request;
      const path = `/v2/domains/${encodeURIComponent(domainName)}?quote=true`;
      let quote: v.InferOutput<typeof QuoteAnswer>;
      try {
        quote = parsed(
          QuoteAnswer,
          'quote',
          (await upstreamCall(settings, 'quote', 'POST', path, registrationBody(periodMonths, order))).body,
        );
      } catch (error) {
        if (error instanceof UpstreamRefusal && error.type === 'ObjectExists') {
          const own = await ownRegistration(domainName, request.customer, periodMonths);
          if (own) return { domainName, registry, held: true, ...(own.premium ? { premium: own.premium } : {}) };
        }
        // Still pending upstream (which refuses a second registration while one runs): the same registration, under its process id.
        if (error instanceof UpstreamRefusal && (error.type === 'ObjectExists' || error.type === 'ObjectStatusProhibitsOperation')) {
          const pending = await ownPendingRegistration(domainName, request.customer, periodMonths);
          if (pending) {
            const premium = pending.premium ? { premium: pending.premium } : {};
            return { domainName, registry, held: true, pendingReference: pending.id, ...premium };
          }
        }
        throw registrationRefusalOf(error, 'quote', domainName, order);
      }
      // The upstream quotes a name its own registration of which is still pending: an earlier request of
      // the caller's (an intent of it is open) may have started it, its answer lost.
      if ((await listRegistrationIntentsOf(domainName)).some((intent) => intent.customer === request.customer)) {
        const pending = await ownPendingRegistration(domainName, request.customer, periodMonths);
        if (pending) {
          const premium = pending.premium ? { premium: pending.premium } : {};
          return { domainName, registry, held: true, pendingReference: pending.id, ...premium };
        }
      }
      const { currency, billables = [] } = quote.quote;
      const charges: RegistryCharge[] = (await chargesNeedingAcknowledgment(currency, billables)).map((b) => ({
        ...b,
        currency: currency as string,
      }));
      if (charges.some((c) => c.action !== 'CREATE')) {
        throw new ObjectStatusProhibitsOperation(
          `The registry charges more than a registration for ${domainName} (${[...new Set(charges.map((c) => c.action))].join(', ')}); it cannot be registered through this service.`,
        );
      }
      const premiumLine = charges[0];
      const premium =
        premiumLine && (premiumLine.currency === 'EUR' || premiumLine.currency === 'USD')
          ? { currency: premiumLine.currency as 'EUR' | 'USD', amount: premiumLine.amount }
          : undefined;
      return { domainName, registry, ...(premium ? { premium } : {}), ...(charges.length > 0 ? { registryCharges: charges } : {}) };
    },

    /**
     * `POST /v2/domains/{name}` upstream with exactly the charges acknowledged in our quote: 201
     * completed with its expiry, 202 pending under the upstream's process id. A name the upstream
     * account already registered for an earlier request of ours answers that registration; one
     * still pending there for it answers pending under that process id, submitted no second time.
     */
    async registerDomain(reference) {
      const { domainName, periodMonths, order, candidate } = reference;
      const adopted = async (): Promise<RegistrationState | undefined> => {
        const own = await ownRegistration(domainName, reference.customer, periodMonths);
        return own ? { status: 'completed', expiryDate: own.domain.expiryDate } : undefined;
      };
      if (candidate.held) {
        if (candidate.pendingReference !== undefined) return stillPending(candidate.pendingReference);
        const held = await adopted();
        if (held) return held;
      }
      const body = {
        ...registrationBody(periodMonths, order),
        ...(candidate.registryCharges?.length
          ? { billables: candidate.registryCharges.map(({ product, action, quantity, amount }) => ({ product, action, quantity, amount })) }
          : {}),
      };
      try {
        const result = await upstreamCall(settings, 'register', 'POST', `/v2/domains/${encodeURIComponent(domainName)}`, body);
        const answer = parsed(RegistrationAnswer, 'register', result.body);
        if (answer.expiryDate !== undefined) return { status: 'completed', expiryDate: answer.expiryDate };
        const processId = result.headers.get('x-process-id') ?? undefined;
        if (processId === undefined || !/^\d{1,15}$/.test(processId)) throw malformedAnswer('register');
        return { status: 'pending', actionDate: nextAsk(), registryReference: processId };
      } catch (error) {
        if (error instanceof UpstreamRefusal && error.type === 'ObjectExists') {
          const held = await adopted();
          if (held) return held;
        }
        if (error instanceof UpstreamRefusal && (error.type === 'ObjectExists' || error.type === 'ObjectStatusProhibitsOperation')) {
          const pending = await ownPendingRegistration(domainName, reference.customer, periodMonths);
          if (pending) return stillPending(pending.id);
        }
        throw registrationRefusalOf(error, 'register', domainName, order);
      }
    },

    /** The upstream's process of a pending registration: completed (the domain's expiry read upstream), failed, or still pending. */
    async registrationState(reference) {
      const id = reference.registryReference;
      if (id === undefined) return { status: 'failed', reason: 'The registry account holds no process of this registration.' };
      const answer = await upstreamCall(settings, 'process', 'GET', `/v2/processes/${encodeURIComponent(id)}`);
      const process = parsed(UpstreamProcess, 'process', answer.body);
      if (process.status === 'COMPLETED') {
        const domain = await upstreamCall(settings, 'domain', 'GET', `/v2/domains/${encodeURIComponent(reference.domainName)}`);
        return { status: 'completed', expiryDate: parsed(UpstreamDomain, 'domain', domain.body).expiryDate, registryReference: id };
      }
      if (['FAILED', 'CANCELLED', 'INVALID'].includes(process.status)) {
        return { status: 'failed', reason: `The registry answered '${process.status}'.`, registryReference: id };
      }
      return { status: 'pending', actionDate: nextAsk(), registryReference: id };
    },

    /** `GET` the domain upstream, then `POST .../renew?quote=true`, then `POST .../renew` with the expiry guard (docs/domains.md). */
    async renewDomain(request) {
      return renewUpstream(request);
    },

    /**
     * `POST /v2/domains/{name}/renew?quote=true` upstream: its `RENEW` line beyond the account's
     * plain price there, per 12 months in the quote's currency (the upstream's check answers a name
     * the account holds `registered`, without its prices).
     */
    async premiumRenewal({ domainName, periodMonths }) {
      const path = `/v2/domains/${encodeURIComponent(domainName)}/renew?quote=true`;
      let quote: v.InferOutput<typeof QuoteAnswer>;
      try {
        quote = parsed(
          QuoteAnswer,
          'renew-quote',
          (await upstreamCall(settings, 'renew-quote', 'POST', path, { period: periodMonths })).body,
        );
      } catch (error) {
        throw lifecycleRefusalOf(error, 'renew-quote', domainName, 'renew');
      }
      const { currency, billables = [] } = quote.quote;
      const line = (await chargesNeedingAcknowledgment(currency, billables)).find((b) => b.action === 'RENEW');
      return line && currency !== undefined ? { currency, amount: line.amount } : undefined;
    },

    /** `DELETE /v2/domains/{name}` upstream; a domain already in redemption there answers its period. */
    async deleteDomain(request) {
      const { domainName, at } = request;
      const redemptionUntil = toWireTime(at.getTime() + (request.redemptionDays ?? 30) * 86_400_000);
      try {
        await upstreamCall(settings, 'delete', 'DELETE', `/v2/domains/${encodeURIComponent(domainName)}`);
        return { redemptionUntil };
      } catch (error) {
        if (error instanceof UpstreamRefusal && error.type === 'ObjectStatusProhibitsOperation') {
          const held = await upstreamDomain(domainName);
          if (held?.status.includes('REDEMPTION_PERIOD')) return { redemptionUntil };
        }
        throw lifecycleRefusalOf(error, 'delete', domainName, 'delete');
      }
    },

    /**
     * `POST /v2/domains/{name}/restore?quote=true` upstream, for a domain in redemption there: its
     * `RESTORE` line beyond the account's plain price there (a registry's restore fee); a charge of
     * another action is refused as restoreDomain refuses it. A domain restored upstream already (our
     * earlier request, its answer lost): the fee of that restore, from its process there.
     */
    async restoreFee({ domainName, reason, redemptionSince }) {
      const held = await upstreamDomain(domainName);
      if (held === undefined) return undefined;
      if (!held.status.includes('REDEMPTION_PERIOD')) return restoredFee(domainName, redemptionSince);
      const path = `/v2/domains/${encodeURIComponent(domainName)}/restore`;
      const { currency, lines } = await quotedCharges(path, { reason }, 'restore-quote', domainName, 'RESTORE', 'restore');
      const line = lines.find((b) => b.action === 'RESTORE');
      return line && currency !== undefined ? { currency, amount: line.amount } : undefined;
    },

    /** `POST .../restore?quote=true`, then `POST .../restore` with the reason; a domain restored already answers its expiry. */
    async restoreDomain(request) {
      const { domainName, reason } = request;
      const path = `/v2/domains/${encodeURIComponent(domainName)}/restore`;
      const held = await upstreamDomain(domainName);
      if (held === undefined) throw new ObjectDoesNotExist('Domain', domainName);
      if (!held.status.includes('REDEMPTION_PERIOD')) {
        // Restored already by an earlier request of ours whose answer was lost.
        if (toWireTime(held.expiryDate) >= request.currentExpiryDate) return { expiryDate: toWireTime(held.expiryDate) };
        throw new ObjectStatusProhibitsOperation(`${domainName} is not in its redemption period at the registry.`);
      }
      // A restore fee upstream above the account's plain price must be within what the customer's quote charged.
      const { charged } = request;
      const billables = await acknowledgedCharges(
        path,
        { reason },
        'restore-quote',
        domainName,
        'RESTORE',
        'restore',
        (line, currency) => charged !== undefined && currency === charged.currency && line.amount <= charged.amount,
      );
      try {
        const answer = await upstreamCall(settings, 'restore', 'POST', path, { reason, ...(billables.length > 0 ? { billables } : {}) });
        return { expiryDate: toWireTime(parsed(ExpiryAnswer, 'restore', answer.body).expiryDate) };
      } catch (error) {
        throw lifecycleRefusalOf(error, 'restore', domainName, 'restore');
      }
    },
  };
}
