import type { Principal } from '../auth/principal.ts';
import { ensureUpstreamContacts } from '../contacts/upstream.ts';
import { type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { getContact } from '../db/repositories/contacts.ts';
import { nextId } from '../db/repositories/counters.ts';
import { getDomainOf, recordDomainUpdate } from '../db/repositories/domains.ts';
import { getProductPrices } from '../db/repositories/prices.ts';
import { findRegistryForDomain } from '../db/repositories/providers.ts';
import { getZoneHead } from '../db/repositories/zones.ts';
import { withPremiumZoneLine } from '../dns/premium-charge.ts';
import { AuthorizationError, ObjectDoesNotExist, ObjectStatusProhibitsOperation, ValidationError } from '../errors.ts';
import { clientStatuses, type DomainRecord, type DomainStatus } from '../model/domain.ts';
import { domainUpdated } from '../model/notification.ts';
import { commandOf, type Outcome, type ProcessRecord } from '../model/process.ts';
import type { QuoteBody } from '../model/quote.ts';
import { assertAcknowledged, buildQuote, domainProduct, listPriceLine, type QuoteLine } from '../pricing/index.ts';
import type { DomainChange } from '../registry/gateway.ts';
import { registryGateway } from '../registry/select.ts';
import { now, toWireTime } from '../time.ts';
import type { DomainView } from './domain-view.ts';
import type { UpdateBody } from './update-request.ts';
import { decideZone, zoneWriteOf } from './update-zone.ts';
import { domainViewOf, domainZoneOf } from './view.ts';

/**
 * `POST /v2/domains/{domainName}/update[?quote=true]`: each field sent is applied, the others are
 * left as they are (docs/domains.md). The registry is asked first (through the registry gateway:
 * the sandbox, or the upstream account), then one transaction records the domain as changed, the
 * update's process (completed: the registry applied it at once), the zone part (`zone`: a managed
 * zone linked, re-linked or removed, update-zone.ts; the zone's NS records following `ns`), its
 * UpdateDomainEvent notification and the Idempotency-Key's answer. A quote prices what the change charges
 * (PRIVACY_PROTECT when privacy is turned on, REGISTRANT_CHANGE where priced) and writes nothing.
 */

export interface UpdateCall {
  domainName: string;
  body: UpdateBody;
  principal: Principal;
}

export type UpdateOutcome = Outcome<QuoteBody, DomainView>;

const designatedAgentPermission = 'DESIGNATED_AGENT';

/** Spec 5: a designated agent (any value but NONE) needs the DESIGNATED_AGENT permission. */
export function authorizeUpdate({ body, principal }: Pick<UpdateCall, 'body' | 'principal'>): void {
  const agent = body.designatedAgent;
  if (agent !== undefined && agent !== 'NONE' && !principal.permissions.includes(designatedAgentPermission)) {
    throw new AuthorizationError(`designatedAgent ${agent} requires the ${designatedAgentPermission} permission.`);
  }
}

const isClient = (s: string) => (clientStatuses as readonly string[]).includes(s);

/**
 * The statuses after an update's `status` (the whole list wanted): the CLIENT_* statuses as asked;
 * the registry's own kept (IRTPC_TRANSFER_PROHIBITED dropped when left out: it may be removed);
 * `OK` when nothing else is left. A registry status asked for that the domain does not have is refused.
 */
function statusesAfter(current: readonly string[], wanted: readonly DomainStatus[]): string[] {
  const refused = wanted.filter((s) => !isClient(s) && s !== 'OK' && !current.includes(s));
  if (refused.length > 0) {
    throw new ValidationError('Only the CLIENT_* statuses can be set by an update.', [
      { field: 'status', message: `cannot add ${refused.join(', ')}: only CLIENT_* statuses can be set`, value: refused.join(',') },
    ]);
  }
  const kept = current.filter((s) => !isClient(s) && s !== 'OK' && (s !== 'IRTPC_TRANSFER_PROHIBITED' || wanted.includes(s)));
  const after = [...kept, ...wanted.filter(isClient)];
  return after.length > 0 ? after : ['OK'];
}

const sameList = <T>(a: readonly T[] | undefined, b: readonly T[] | undefined) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** The registry-side change the body asks for (only what differs), and the domain as it will be. */
function changeOf(domain: DomainRecord, body: UpdateBody, at: Date, gtldLock: { days: number } | undefined) {
  const change: Omit<DomainChange, 'domainName' | 'registry' | 'current'> = {};
  let status = domain.status;
  if (body.status !== undefined) {
    const after = statusesAfter(domain.status, body.status);
    if (!sameList([...after].sort(), [...domain.status].sort())) status = after;
  }
  if (body.ns !== undefined && !sameList(body.ns, domain.ns)) {
    const own = body.ns.filter((host) => host.endsWith(`.${domain.domainName}`) && !(domain.childHosts ?? []).includes(host));
    if (own.length > 0) {
      throw new ValidationError(
        'A name server under the domain itself must exist at the registry first (a child host with its addresses).',
        [{ field: 'ns', message: `${own.join(', ')} does not exist at the registry`, value: own.join(',') }],
      );
    }
    change.ns = body.ns;
  }
  const registrantChanges = body.registrant !== undefined && body.registrant !== domain.registrant;
  let transferLockUntil = domain.transferLockUntil;
  if (registrantChanges) {
    change.registrant = body.registrant;
    if (body.designatedAgent !== undefined) change.designatedAgent = body.designatedAgent;
    // IRTP-C: a gTLD registrant change locks transfers for 60 days unless the old registrant's agent opts out.
    const optedOut = body.designatedAgent === 'OLD' || body.designatedAgent === 'BOTH';
    if (gtldLock && !optedOut) {
      transferLockUntil = toWireTime(new Date(at.getTime() + gtldLock.days * 86_400_000));
      status = [...status.filter((s) => s !== 'OK'), 'IRTPC_TRANSFER_PROHIBITED'];
    }
  }
  if (status !== domain.status) change.status = status;
  if (body.contacts !== undefined && !sameList(body.contacts, domain.contacts)) change.contacts = body.contacts;
  if (body.keyData !== undefined && !sameList(body.keyData, domain.keyData)) change.keyData = body.keyData;
  if (body.dsData !== undefined && !sameList(body.dsData, domain.dsData)) change.dsData = body.dsData;
  if (body.privacyProtect !== undefined && body.privacyProtect !== domain.privacyProtect) change.privacyProtect = body.privacyProtect;
  if (body.authcode !== undefined) change.authcode = body.authcode;
  const after: DomainRecord = {
    ...domain,
    ...(change.ns ? { ns: change.ns } : {}),
    ...(change.registrant ? { registrant: change.registrant } : {}),
    ...(change.contacts ? { contacts: change.contacts } : {}),
    ...(change.keyData ? { keyData: change.keyData } : {}),
    ...(change.dsData ? { dsData: change.dsData } : {}),
    ...(change.privacyProtect !== undefined ? { privacyProtect: change.privacyProtect } : {}),
    ...(body.autoRenew !== undefined ? { autoRenew: body.autoRenew } : {}),
    ...(body.autoRenewPeriod !== undefined ? { autoRenewPeriod: body.autoRenewPeriod } : {}),
    ...(body.languageCode !== undefined ? { languageCode: body.languageCode } : {}),
    ...(transferLockUntil !== undefined ? { transferLockUntil } : {}),
    status,
  };
  return { change, after, registrantChanges };
}

/** The fields an update changed, in wire names (the notification tells them). */
function changedFields(before: DomainRecord, after: DomainRecord, authcode: boolean): string[] {
  const fields = (
    [
      'registrant',
      'contacts',
      'ns',
      'keyData',
      'dsData',
      'privacyProtect',
      'autoRenew',
      'autoRenewPeriod',
      'languageCode',
      'status',
    ] as const
  ).filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
  return authcode ? [...fields, 'authcode'] : fields;
}

/** The handles the body names must be contacts of the caller (read-only: the contact API keeps them). */
async function assertContactsExist(customer: string, body: UpdateBody): Promise<void> {
  const named = [...new Set([...(body.registrant !== undefined ? [body.registrant] : []), ...(body.contacts ?? []).map((c) => c.handle)])];
  const found = await Promise.all(named.map((handle) => getContact(customer, handle)));
  const missing = named.filter((_, i) => found[i] === undefined);
  if (missing.length > 0) {
    throw new ValidationError(`Contact '${missing[0]}' does not exist.`, [
      ...missing.map((handle) => ({
        field: handle === body.registrant ? 'registrant' : 'contacts',
        message: `${handle} is not a contact of this account`,
      })),
    ]);
  }
}

/** The change's registrant and contacts as the registry knows them (an upstream account holds them first: shared/contacts/upstream.ts). */
async function registryContactsOf(customer: string, change: Pick<DomainChange, 'registrant' | 'contacts'>) {
  const named = await ensureUpstreamContacts(customer, [
    ...(change.registrant !== undefined ? [change.registrant] : []),
    ...(change.contacts ?? []).map((c) => c.handle),
  ]);
  const of = (handle: string) => named.get(handle) ?? handle;
  return {
    ...(change.registrant !== undefined ? { registrant: of(change.registrant) } : {}),
    ...(change.contacts !== undefined ? { contacts: change.contacts.map((c) => ({ ...c, handle: of(c.handle) })) } : {}),
  };
}

/** The registry's rules for the name: its extension, and the transfer lock a registrant change sets (gTLDs under IRTP-C). */
async function rulesOf(domainName: string): Promise<{ extension: string; gtldLock?: { days: number } }> {
  const found = await findRegistryForDomain(domainName);
  if (!found) return { extension: domainName.slice(domainName.indexOf('.') + 1) };
  const tld = found.provider.tldMetadata;
  return {
    extension: found.extension,
    ...(tld?.registrantChangeTransferLock ? { gtldLock: { days: tld.transferLockDays ?? 60 } } : {}),
  };
}

/** What the change charges at the customer's prices: PRIVACY_PROTECT turned on (a year), REGISTRANT_CHANGE where the list prices it. */
async function priceUpdate(
  customer: string,
  domain: DomainRecord,
  extension: string,
  privacyOn: boolean,
  registrantChanges: boolean,
  at: Date,
) {
  const product = domainProduct(extension);
  const list = await getProductPrices(customer, product);
  const charge = { product, quantity: 1, providerName: domain.registry };
  const lines: QuoteLine[] = [];
  let currency: string | undefined;
  for (const [wanted, action] of [
    [privacyOn, 'PRIVACY_PROTECT'],
    [registrantChanges, 'REGISTRANT_CHANGE'],
  ] as const) {
    if (!wanted) continue;
    const priced = listPriceLine(list, { ...charge, action }, at);
    if (priced && (currency === undefined || priced.currency === currency)) {
      currency = priced.currency;
      lines.push(priced.line);
    }
  }
  return { quote: buildQuote('UpdateDomainCommand', currency ?? 'EUR', lines), list };
}

/** Updates a domain of the caller, or (quoteOnly) prices the update. */
export async function updateDomain(
  call: UpdateCall,
  quoteOnly: boolean,
  commitWith: CommitWith<UpdateOutcome> = commitNothing,
): Promise<UpdateOutcome> {
  authorizeUpdate(call);
  const { domainName, body, principal } = call;
  for (let attempt = 0; ; attempt++) {
    const at = now();
    const domain = await getDomainOf(principal.customer, domainName);
    if (!domain) throw new ObjectDoesNotExist('Domain', domainName);
    const rules = await rulesOf(domainName);
    const { change, after, registrantChanges } = changeOf(domain, body, at, rules.gtldLock);
    const lifted = domain.status.includes('CLIENT_UPDATE_PROHIBITED') && !after.status.includes('CLIENT_UPDATE_PROHIBITED');
    if (domain.status.includes('CLIENT_UPDATE_PROHIBITED') && !lifted && JSON.stringify(after) !== JSON.stringify(domain)) {
      throw new ObjectStatusProhibitsOperation(`${domainName} has CLIENT_UPDATE_PROHIBITED: lift it (status) to change the domain.`);
    }
    await assertContactsExist(principal.customer, body);
    // The name's zone, read consistently (its write is conditional on it): what `zone` does, and what the answer shows.
    const head = await getZoneHead(domainName, true);
    const zoneDecision = await decideZone(principal.customer, domainName, body.zone, head, toWireTime(at));
    // A PREMIUM zone the update provisions is charged with it (dns_premium CREATE: shared/dns/premium-charge.ts).
    const { quote, list } = await withPremiumZoneLine(
      await priceUpdate(principal.customer, domain, rules.extension, change.privacyProtect === true, registrantChanges, at),
      zoneDecision?.kind === 'create' ? zoneDecision.plan : undefined,
      principal.customer,
      domainName,
      at,
    );
    if (quoteOnly) return { quote };
    assertAcknowledged(quote, list, body.billables, at);

    const registryChange = Object.keys(change).length > 0;
    const answer = registryChange
      ? await (await registryGateway()).updateDomain({
          domainName,
          registry: domain.registry,
          current: { ns: domain.ns, status: domain.status, keyData: domain.keyData, expiryDate: domain.expiryDate },
          ...change,
          ...(await registryContactsOf(principal.customer, change)),
        })
      : {};
    const wireAt = toWireTime(at);
    const updated: DomainRecord = {
      ...after,
      ...(answer.authcode !== undefined ? { authcode: answer.authcode } : {}),
      updatedDate: wireAt,
    };
    const process: ProcessRecord = {
      id: await nextId('process'),
      customer: principal.customer,
      user: principal.user,
      type: 'domain',
      action: 'update',
      identifier: domainName,
      status: 'COMPLETED',
      createdDate: wireAt,
      updatedDate: wireAt,
      billables: quote.quote.billables ?? [],
      // A removal as it was sent (`zone: {}`), not as parsed.
      command: commandOf({ domainName, ...body, ...(body.zone === null ? { zone: {} } : {}) }),
      ...(quote.quote.currency !== undefined ? { currency: quote.quote.currency } : {}),
    };
    // The zone part: a managed zone of the caller's serves the domain's name servers as its NS records (zone-sync takes them to DNS).
    const zone = await zoneWriteOf(zoneDecision, {
      domainName,
      customer: principal.customer,
      at: wireAt,
      head,
      ...(change.ns ? { ns: change.ns } : {}),
    });
    const managed = domainZoneOf(zone.zone);
    const view = domainViewOf(updated, managed ? { zone: managed } : {});
    const outcome: UpdateOutcome = { started: { processId: process.id, completed: true, view } };
    const fields = changedFields(domain, updated, body.authcode !== undefined);
    const notification = domainUpdated(process, zoneDecision ? [...fields, 'zone'] : fields);
    if (await recordDomainUpdate(domain, updated, process, notification, commitWith(outcome), zone.write)) return outcome;
    // The domain or its zone changed meanwhile (another update): apply this one again to them as they now are.
    if (attempt >= 2) throw new ObjectStatusProhibitsOperation(`${domainName} is being changed by another request; retry.`);
  }
}
