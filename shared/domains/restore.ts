import type { Principal } from '../auth/principal.ts';
import { type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { getDomainOf, recordDomainUpdate } from '../db/repositories/domains.ts';
import { ObjectDoesNotExist, ObjectStatusProhibitsOperation } from '../errors.ts';
import type { DomainRecord } from '../model/domain.ts';
import { inRedemption } from '../model/domain-lifecycle.ts';
import { domainRestored } from '../model/notification.ts';
import type { Outcome } from '../model/process.ts';
import type { QuoteBody } from '../model/quote.ts';
import { assertAcknowledged } from '../pricing/index.ts';
import { registryGateway } from '../registry/select.ts';
import { now } from '../time.ts';
import { domainProcess, priceDomainAction, registryOfDomain } from './lifecycle-charge.ts';
import type { RestoreBody } from './lifecycle-request.ts';
import type { ExpiryView } from './lifecycle-view.ts';

/**
 * `POST /v2/domains/{domainName}/restore[?quote=true]` (docs/domains.md): a domain in its
 * redemption period, before it ends, is restored. `RESTORE` is priced at the customer's prices,
 * or at the registry's restore fee where that is higher (passed on, to be acknowledged)
 * (`quote=true` answers the quote); then the acknowledgment, the registry's restore (a repeat after
 * a lost answer is that restore), and one transaction records the domain as restored (`OK`, its
 * expiry as the registry answers it), the completed process with its RESTORE billable, the
 * RestoreDomainEvent and the Idempotency-Key's answer. A refusal charges nothing.
 */

export interface RestoreCall {
  domainName: string;
  body: RestoreBody;
  principal: Principal;
}

export type RestoreOutcome = Outcome<QuoteBody, ExpiryView>;

export async function restoreDomain(
  call: RestoreCall,
  quoteOnly: boolean,
  commitWith: CommitWith<RestoreOutcome> = commitNothing,
): Promise<RestoreOutcome> {
  const { domainName, body, principal } = call;
  for (let attempt = 0; ; attempt++) {
    const at = now();
    const domain = await getDomainOf(principal.customer, domainName);
    if (!domain) throw new ObjectDoesNotExist('Domain', domainName);
    if (!inRedemption(domain))
      throw new ObjectStatusProhibitsOperation(`${domainName} is not in its redemption period: there is nothing to restore.`);
    // Over but not yet removed by the expiry job: gone all the same.
    if (domain.redemptionUntil !== undefined && at.getTime() >= Date.parse(domain.redemptionUntil))
      throw new ObjectDoesNotExist('Domain', domainName);
    const { extension } = await registryOfDomain(domainName);
    const gateway = await registryGateway();
    // A registry's restore fee above the customer's RESTORE price is passed on in the quote (docs/domains.md).
    const fee = gateway.restoreFee
      ? await gateway.restoreFee({ domainName, registry: domain.registry, reason: body.reason, redemptionSince: domain.updatedDate })
      : undefined;
    const { quote, list } = await priceDomainAction(domain, extension, 'RESTORE', 1, 'RestoreDomainCommand', at, undefined, fee);
    if (quoteOnly) return { quote };
    assertAcknowledged(quote, list, body.billables, at);
    const { expiryDate } = await gateway.restoreDomain({
      domainName,
      registry: domain.registry,
      currentExpiryDate: domain.expiryDate,
      current: { ns: domain.ns, status: domain.status, keyData: domain.keyData },
      reason: body.reason,
      at,
      // What the quote covers: the registry's fee it passed on (in the registry's currency), else its RESTORE line.
      ...(fee ? { charged: fee } : restoreCharge(quote)),
    });
    const process = await domainProcess(domain, principal.user, 'restore', at, { reason: body.reason, billables: body.billables }, quote);
    const after = restoredRecord(domain, expiryDate, process.updatedDate);
    const outcome: RestoreOutcome = { started: { processId: process.id, completed: true, view: { domainName, expiryDate } } };
    if (await recordDomainUpdate(domain, after, process, domainRestored(process, expiryDate), commitWith(outcome))) return outcome;
    // Restored by another request meanwhile: never asked of the registry again.
    const fresh = await getDomainOf(principal.customer, domainName);
    if (fresh && !inRedemption(fresh)) throw new ObjectStatusProhibitsOperation(`${domainName} was restored by another request meanwhile.`);
    if (attempt >= 2) throw new ObjectStatusProhibitsOperation(`${domainName} is being changed by another request; retry.`);
  }
}

/** The RESTORE line the customer's quote charges, for the registry to check its own charge against. */
function restoreCharge(quote: QuoteBody): { charged?: { currency: string; amount: number } } {
  const line = quote.quote.billables?.find((b) => b.action === 'RESTORE');
  return line && quote.quote.currency ? { charged: { currency: quote.quote.currency, amount: line.amount } } : {};
}

function restoredRecord(domain: DomainRecord, expiryDate: string, at: string): DomainRecord {
  const { redemptionUntil: _until, lifecycleDue: _due, expiryNotices: _notices, ...rest } = domain;
  return { ...rest, status: ['OK'], expiryDate, updatedDate: at };
}
