import type { Principal } from '../auth/principal.ts';
import { type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { getDomainOf, recordDomainUpdate } from '../db/repositories/domains.ts';
import { ObjectDoesNotExist, ObjectStatusProhibitsOperation } from '../errors.ts';
import type { DomainRecord } from '../model/domain.ts';
import { defaultRedemptionDays, deleteBlocking, inRedemption } from '../model/domain-lifecycle.ts';
import { domainInRedemption } from '../model/notification.ts';
import type { ProcessRecord, StartedProcess } from '../model/process.ts';
import { registryGateway } from '../registry/select.ts';
import { now } from '../time.ts';
import { domainProcess, registryOfDomain } from './lifecycle-charge.ts';
import type { DeletedView } from './lifecycle-view.ts';

/**
 * `DELETE /v2/domains/{domainName}` (docs/domains.md): refused while the domain has a delete lock
 * (`CLIENT_DELETE_PROHIBITED`, or the registry's); else the registry deletes it into its redemption
 * period, and one transaction records the domain as `REDEMPTION_PERIOD` (restorable until its end,
 * then the expiry job removes it and the name is free), the completed process, the
 * DeleteDomainEvent and the Idempotency-Key's answer. Nothing is charged.
 */

export interface DeleteCall {
  domainName: string;
  principal: Principal;
}

export type DeleteOutcome = { started: StartedProcess<DeletedView> };

/** The domain in its redemption period until `until`. */
export function redemptionRecord(domain: DomainRecord, until: string, at: string): DomainRecord {
  const { lifecycleDue: _due, expiryNotices: _notices, ...rest } = domain;
  return { ...rest, status: ['REDEMPTION_PERIOD'], redemptionUntil: until, updatedDate: at };
}

/** The registry's redemption period in days (its TLD metadata), or the default. */
export async function redemptionDaysOf(domainName: string): Promise<{ days: number; graceDays?: number }> {
  const { provider } = await registryOfDomain(domainName);
  const tld = provider?.tldMetadata;
  return {
    days: tld?.redemptionPeriod || defaultRedemptionDays,
    ...(tld?.autoRenewGracePeriod !== undefined ? { graceDays: tld.autoRenewGracePeriod } : {}),
  };
}

export async function deleteDomain(call: DeleteCall, commitWith: CommitWith<DeleteOutcome> = commitNothing): Promise<DeleteOutcome> {
  const { domainName, principal } = call;
  for (let attempt = 0; ; attempt++) {
    const at = now();
    const domain = await getDomainOf(principal.customer, domainName);
    if (!domain) throw new ObjectDoesNotExist('Domain', domainName);
    if (inRedemption(domain)) throw new ObjectStatusProhibitsOperation(`${domainName} is already deleted (in its redemption period).`);
    const locks = domain.status.filter((s) => (deleteBlocking as readonly string[]).includes(s));
    if (locks.length > 0) {
      throw new ObjectStatusProhibitsOperation(
        `${domainName} has ${locks.join(', ')}: lift it (POST /v2/domains/${domainName}/update) to delete the domain.`,
      );
    }
    const { days } = await redemptionDaysOf(domainName);
    const { redemptionUntil } = await (await registryGateway()).deleteDomain({
      domainName,
      registry: domain.registry,
      currentExpiryDate: domain.expiryDate,
      current: { ns: domain.ns, status: domain.status, keyData: domain.keyData },
      redemptionDays: days,
      at,
    });
    const process: ProcessRecord = await domainProcess(domain, principal.user, 'delete', at, {});
    const after = redemptionRecord(domain, redemptionUntil, process.updatedDate);
    const outcome: DeleteOutcome = { started: { processId: process.id, completed: true, view: { domainName } } };
    if (await recordDomainUpdate(domain, after, process, domainInRedemption(process, redemptionUntil, 'deleted'), commitWith(outcome)))
      return outcome;
    const fresh = await getDomainOf(principal.customer, domainName);
    if (fresh && inRedemption(fresh)) throw new ObjectStatusProhibitsOperation(`${domainName} was deleted by another request meanwhile.`);
    if (attempt >= 2) throw new ObjectStatusProhibitsOperation(`${domainName} is being changed by another request; retry.`);
  }
}
