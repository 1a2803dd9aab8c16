import type { Principal } from '../auth/principal.ts';
import { type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { getDomainOf, recordDomainUpdate } from '../db/repositories/domains.ts';
import { ObjectDoesNotExist, ObjectStatusProhibitsOperation, ValidationError } from '../errors.ts';
import type { DomainRecord } from '../model/domain.ts';
import { inRedemption, maxTermYears, renewBlocking } from '../model/domain-lifecycle.ts';
import { domainRenewed } from '../model/notification.ts';
import type { Outcome } from '../model/process.ts';
import type { ProviderRecord } from '../model/provider.ts';
import type { QuoteBody } from '../model/quote.ts';
import { assertAcknowledged } from '../pricing/index.ts';
import { registryGateway } from '../registry/select.ts';
import { addMonths, now, toWireTime } from '../time.ts';
import { domainProcess, premiumRenewalOf, priceDomainAction, registryOfDomain } from './lifecycle-charge.ts';
import type { RenewBody } from './lifecycle-request.ts';
import type { ExpiryView } from './lifecycle-view.ts';

/**
 * `POST /v2/domains/{domainName}/renew[?quote=true]` (docs/domains.md): checks the period against
 * the registry's renewal periods, the optional expiry guard, the registry's maximum term and the
 * statuses; prices `RENEW` at the customer's prices (a premium domain's at the registry's premium
 * renewal price on `domain_<extension>_premium`, acknowledged as a premium registration's CREATE
 * is); with `quote=true` answers the quote. Otherwise
 * the acknowledgment, then the registry renews (from the expiry we hold: a repeat after a lost
 * answer is that renewal, never a second), then one transaction records the new expiry, the
 * completed process with its RENEW billable, the RenewDomainEvent and the Idempotency-Key's answer.
 * A registry refusal charges nothing: the charge is only recorded with the renewal.
 */

export interface RenewCall {
  domainName: string;
  body: RenewBody;
  principal: Principal;
}

export type RenewOutcome = Outcome<QuoteBody, ExpiryView>;

/** The registry's renewal periods (months), sorted; 12 when it names none. */
function renewalPeriods(provider: ProviderRecord | undefined): number[] {
  return [...(provider?.metadata.renewDomainPeriods ?? [12])].filter((p) => p > 0).sort((a, b) => a - b);
}

/** What a renewal of `domain` for `period` months checks before it is priced; answers the expiry after it. */
export function checkRenewal(domain: DomainRecord, period: number, provider: ProviderRecord | undefined, at: Date, guard?: string): string {
  const { domainName } = domain;
  if (inRedemption(domain)) {
    throw new ObjectStatusProhibitsOperation(
      `${domainName} is in its redemption period: restore it (POST /v2/domains/${domainName}/restore).`,
    );
  }
  const blocking = domain.status.filter((s) => (renewBlocking as readonly string[]).includes(s));
  if (blocking.length > 0) throw new ObjectStatusProhibitsOperation(`${domainName} has ${blocking.join(', ')}: it cannot be renewed.`);
  if (guard !== undefined && guard !== domain.expiryDate) {
    throw new ValidationError(`The expiry of ${domainName} is not the one given: read the domain again before renewing.`, [
      { field: 'expiryDate', message: `does not match the domain's expiry (${domain.expiryDate})`, value: guard },
    ]);
  }
  const registry = provider?.name ?? domain.registry;
  const periods = renewalPeriods(provider);
  if (!periods.includes(period)) {
    throw new ValidationError(`The period is not one ${registry} renews for.`, [
      { field: 'period', message: `must be one of ${periods.join(', ')} (months) at ${registry}`, value: period },
    ]);
  }
  const after = toWireTime(addMonths(new Date(domain.expiryDate), period));
  const limit = toWireTime(addMonths(at, maxTermYears * 12));
  if (after > limit) {
    throw new ValidationError(
      `The renewal would extend ${domainName} beyond the registry's maximum term of ${maxTermYears} years from now.`,
      [
        {
          field: 'period',
          message: `would put the expiry (${after}) beyond the maximum term of ${maxTermYears} years (${limit})`,
          value: period,
        },
      ],
    );
  }
  return after;
}

/** Renews a domain of the caller, or (quoteOnly) prices the renewal. */
export async function renewDomain(
  call: RenewCall,
  quoteOnly: boolean,
  commitWith: CommitWith<RenewOutcome> = commitNothing,
): Promise<RenewOutcome> {
  const { domainName, body, principal } = call;
  for (let attempt = 0; ; attempt++) {
    const at = now();
    const domain = await getDomainOf(principal.customer, domainName);
    if (!domain) throw new ObjectDoesNotExist('Domain', domainName);
    const { extension, provider } = await registryOfDomain(domainName);
    checkRenewal(domain, body.period, provider, at, body.expiryDate);
    const years = Math.max(1, Math.ceil(body.period / 12));
    const gateway = await registryGateway();
    const premium = await premiumRenewalOf(domain, gateway, body.period);
    const { quote, list } = await priceDomainAction(domain, extension, 'RENEW', years, 'RenewDomainCommand', at, undefined, premium);
    if (quoteOnly) return { quote };
    assertAcknowledged(quote, list, body.billables, at);

    const { expiryDate } = await gateway.renewDomain({
      domainName,
      registry: domain.registry,
      periodMonths: body.period,
      currentExpiryDate: domain.expiryDate,
      current: { ns: domain.ns, status: domain.status, keyData: domain.keyData },
      ...(premium ? { premium } : {}),
    });
    const process = await domainProcess(domain, principal.user, 'renew', at, { period: body.period, billables: body.billables }, quote);
    const renewed = renewedRecord(domain, expiryDate, process.updatedDate);
    const outcome: RenewOutcome = { started: { processId: process.id, completed: true, view: { domainName, expiryDate } } };
    if (await recordDomainUpdate(domain, renewed, process, domainRenewed(process, expiryDate, false), commitWith(outcome))) return outcome;
    // The domain changed meanwhile. Renewed by another request (another attempt of this one among them):
    // never asked of the registry again. Else (an update) again from it as it now is: the registry
    // answers the renewal it made from the same expiry.
    const fresh = await getDomainOf(principal.customer, domainName);
    if (fresh && fresh.expiryDate !== domain.expiryDate) {
      throw new ObjectStatusProhibitsOperation(`${domainName} was renewed by another request meanwhile; read it again.`);
    }
    if (attempt >= 2) throw new ObjectStatusProhibitsOperation(`${domainName} is being changed by another request; retry.`);
  }
}

/** The domain after a renewal: its new expiry, no longer EXPIRED, the expiry job's plan for it reset. */
export function renewedRecord(domain: DomainRecord, expiryDate: string, at: string): DomainRecord {
  const { lifecycleDue: _due, expiryNotices: _notices, ...rest } = domain;
  const status = domain.status.filter((s) => s !== 'EXPIRED');
  return { ...rest, expiryDate, status: status.length > 0 ? status : ['OK'], updatedDate: at };
}
