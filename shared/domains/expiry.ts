import { getCustomer } from '../db/repositories/customers.ts';
import { getDomain, listDueDomains, purgeDomain, recordDomainUpdate, replaceDomain } from '../db/repositories/domains.ts';
import { getProductPrices } from '../db/repositories/prices.ts';
import { runZoneRenewals, type ZoneRenewalRun } from '../dns/premium-renewal.ts';
import { ObjectStatusProhibitsOperation, ProviderUnavailable, ValidationError } from '../errors.ts';
import { workThroughDue } from '../jobs/due-listing.ts';
import { logger } from '../logger.ts';
import type { DomainRecord } from '../model/domain.ts';
import { daysAfter, defaultGraceDays, defaultNoticeDays, dueOf, type LifecycleStep, nextStep } from '../model/domain-lifecycle.ts';
import { domainExpiryReport, domainInRedemption, domainPurged, domainRenewed, type NotificationRecord } from '../model/notification.ts';
import type { ProcessRecord } from '../model/process.ts';
import type { PriceList } from '../pricing/index.ts';
import { registryGateway } from '../registry/select.ts';
import { toWireTime } from '../time.ts';
import { redemptionDaysOf, redemptionRecord } from './delete.ts';
import { domainProcess, premiumRenewalOf, priceDomainAction, registryOfDomain } from './lifecycle-charge.ts';
import { renewedRecord } from './renew.ts';

/**
 * The expiry job (docs/domains.md, "Life cycle"): every run reads the domains that are due, through
 * the expiry listing (keys.domainDue: one gsi1 partition by due time, across customers; never a
 * scan, never per customer), and takes each one step (shared/model/domain-lifecycle.ts): an expiry
 * notice, the auto-renewal (charged RENEW), expiry, the move into redemption (the registry deletes
 * it), or its removal when redemption is over. Each step is one transaction with its process and
 * notification, guarded by the domain's `updatedDate`, so a step is never taken twice; a renewal
 * the registry made whose record a crash lost is answered again by the registry as that renewal
 * (gateway.renewDomain), so a domain is never renewed or charged twice. It works within its budget
 * and leaves the rest due for the next run. Then, in what is left of its budget, it charges the next
 * year of the PREMIUM zones whose paid year is over (shared/dns/premium-renewal.ts).
 */

export interface ExpiryRun {
  read: number;
  notices: number;
  renewed: number;
  expired: number;
  redeemed: number;
  purged: number;
  waiting: number;
  failed: number;
  /** Whether due domains (or zones) were left for the next run (the budget ran out). */
  more: boolean;
  /** The PREMIUM zones whose year was due (shared/dns/premium-renewal.ts), after the domains. */
  zones: ZoneRenewalRun;
}

/** The user a process of the job is recorded for. */
const jobUser = 'system/expiry';

interface Rules {
  noticeDays: readonly number[];
  graceDays: number;
  redemptionDays: number;
  /** The customer's prices of a product, read once a run. */
  prices: (customer: string, product: string) => Promise<PriceList>;
}

/** One run: pages of `pageSize` due domains, `concurrency` at a time, until none is due or `deadline` (ms since the epoch) nears. */
export async function runExpiry(at: Date, options: { deadline: number; pageSize?: number; concurrency?: number }): Promise<ExpiryRun> {
  const run: ExpiryRun = {
    read: 0,
    notices: 0,
    renewed: 0,
    expired: 0,
    redeemed: 0,
    purged: 0,
    waiting: 0,
    failed: 0,
    more: false,
    zones: { read: 0, charged: 0, ended: 0, failed: 0, more: false },
  };
  const pageSize = options.pageSize ?? 100;
  const concurrency = options.concurrency ?? 16;
  const customers = new Map<string, Promise<readonly number[]>>();
  const registries = new Map<string, Promise<{ graceDays: number; redemptionDays: number }>>();
  const lists = new Map<string, Promise<PriceList>>();
  const prices = (customer: string, product: string) => {
    const key = `${customer} ${product}`;
    if (!lists.has(key)) lists.set(key, getProductPrices(customer, product));
    return lists.get(key) as Promise<PriceList>;
  };
  const rulesOf = async (d: DomainRecord): Promise<Rules> => {
    if (!customers.has(d.customer)) {
      customers.set(
        d.customer,
        getCustomer(d.customer).then((c) => c?.expiryNoticeDays ?? defaultNoticeDays),
      );
    }
    const tld = d.domainName.slice(d.domainName.indexOf('.') + 1);
    if (!registries.has(tld)) {
      registries.set(
        tld,
        redemptionDaysOf(d.domainName).then((r) => ({ graceDays: r.graceDays ?? defaultGraceDays, redemptionDays: r.days })),
      );
    }
    const [noticeDays, registry] = await Promise.all([customers.get(d.customer), registries.get(tld)]);
    return { noticeDays: noticeDays as readonly number[], ...(registry as { graceDays: number; redemptionDays: number }), prices };
  };

  const domains = await workThroughDue(
    (start) => listDueDomains(toWireTime(at), pageSize, start),
    async (entry) => {
      try {
        const taken = await takeStep(entry.domainName, at, rulesOf);
        if (taken) run[taken] += 1;
      } catch (error) {
        run.failed += 1;
        logger.warn('expiry step failed', { job: 'domain-expiry', domainName: entry.domainName, error: error as Error });
      }
    },
    { deadline: options.deadline, concurrency },
  );
  run.read = domains.read;
  run.more = domains.more;
  // Then the PREMIUM zones whose paid year is over, within what is left of the budget.
  run.zones = await runZoneRenewals(at, { deadline: options.deadline, pageSize, concurrency, prices });
  if (run.zones.more) run.more = true;
  return run;
}

type Counted = 'notices' | 'renewed' | 'expired' | 'redeemed' | 'purged' | 'waiting';

/** One domain's step, read fresh (its listing entry may be stale); undefined when it was not due after all or changed meanwhile. */
async function takeStep(domainName: string, at: Date, rulesOf: (d: DomainRecord) => Promise<Rules>): Promise<Counted | undefined> {
  const domain = await getDomain(domainName);
  if (!domain || dueOf(domain) > toWireTime(at)) return undefined;
  const rules = await rulesOf(domain);
  const step = nextStep(domain, at, rules);
  const wireAt = toWireTime(at);
  switch (step.step) {
    case 'wait':
      return (await replaceDomain(domain, { ...domain, lifecycleDue: step.until, updatedDate: later(domain, wireAt) }))
        ? 'waiting'
        : undefined;
    case 'notice': {
      // The days left as they are (a notice sent late, after the job was down, tells the truth).
      const days = Math.max(1, Math.ceil((Date.parse(domain.expiryDate) - at.getTime()) / 86_400_000));
      const process = await domainProcess(domain, jobUser, 'expiryNotice', at, { notice: step.days });
      const after = { ...domain, expiryNotices: { expiryDate: domain.expiryDate, days: step.sent } };
      return (await record(domain, after, process, domainExpiryReport(process, domain.expiryDate, days, domain.autoRenew), at, rules))
        ? 'notices'
        : undefined;
    }
    case 'renew':
      return autoRenew(domain, at, rules);
    case 'expire':
      return expire(domain, at, rules, 'auto-renew is off');
    case 'redeem': {
      const { redemptionUntil } = await (await registryGateway()).deleteDomain({
        domainName,
        registry: domain.registry,
        currentExpiryDate: domain.expiryDate,
        current: { ns: domain.ns, status: domain.status, keyData: domain.keyData },
        redemptionDays: rules.redemptionDays,
        at,
      });
      const process = await domainProcess(domain, jobUser, 'delete', at, { reason: 'not renewed' });
      const after = redemptionRecord(domain, redemptionUntil, later(domain, process.updatedDate));
      return (await record(domain, after, process, domainInRedemption(process, redemptionUntil, 'expired'), at, rules))
        ? 'redeemed'
        : undefined;
    }
    case 'purge': {
      const process = await domainProcess(domain, jobUser, 'purge', at, {});
      return (await purgeDomain(domain, process, domainPurged(process))) ? 'purged' : undefined;
    }
  }
}

/** A time for `updatedDate` that moves: `at`, or a second past the domain's own when the clock lags it. */
function later(domain: DomainRecord, at: string): string {
  return at > domain.updatedDate ? at : daysAfter(domain.updatedDate, 1 / 86_400);
}

/** Records a step with its process and notification, and when the job looks at the domain next. */
function record(
  before: DomainRecord,
  after: DomainRecord,
  process: ProcessRecord,
  notification: NotificationRecord,
  at: Date,
  rules: Rules,
) {
  const moved = { ...after, updatedDate: later(before, after.updatedDate > before.updatedDate ? after.updatedDate : toWireTime(at)) };
  const next: LifecycleStep = nextStep(moved, at, rules);
  const { lifecycleDue: _due, ...rest } = moved;
  const planned: DomainRecord = next.step === 'wait' ? { ...rest, lifecycleDue: next.until } : rest;
  return recordDomainUpdate(before, planned, process, notification);
}

/**
 * At expiry with autoRenew: renewed for `autoRenewPeriod` at the registry and charged RENEW (a
 * premium domain at its premium renewal price, as the customer's standing consent); a refusal
 * expires it instead.
 */
async function autoRenew(domain: DomainRecord, at: Date, rules: Rules): Promise<Counted | undefined> {
  const { extension } = await registryOfDomain(domain.domainName);
  const period = domain.autoRenewPeriod;
  let quote: Awaited<ReturnType<typeof priceDomainAction>>['quote'];
  let expiryDate: string;
  try {
    const gateway = await registryGateway();
    // A premium domain renews at its premium renewal price: its autoRenew is the customer's standing consent (docs/domains.md).
    const premium = await premiumRenewalOf(domain, gateway, period);
    ({ quote } = await priceDomainAction(
      domain,
      extension,
      'RENEW',
      Math.max(1, Math.ceil(period / 12)),
      'RenewDomainCommand',
      at,
      rules.prices,
      premium,
    ));
    ({ expiryDate } = await gateway.renewDomain({
      domainName: domain.domainName,
      registry: domain.registry,
      periodMonths: period,
      currentExpiryDate: domain.expiryDate,
      current: { ns: domain.ns, status: domain.status, keyData: domain.keyData },
      ...(premium ? { premium } : {}),
    }));
  } catch (error) {
    // A refusal (no price, the registry's): expired, and said why. An outage: tried again at the next run.
    if (error instanceof ProviderUnavailable || !(error instanceof ValidationError || error instanceof ObjectStatusProhibitsOperation))
      throw error;
    return expire(domain, at, rules, `the renewal was refused: ${error.message}`);
  }
  const process = await domainProcess(domain, jobUser, 'renew', at, { period, autoRenew: true }, quote);
  const after = renewedRecord(domain, expiryDate, later(domain, process.updatedDate));
  return (await record(domain, after, process, domainRenewed(process, expiryDate, true), at, rules)) ? 'renewed' : undefined;
}

/** At expiry without a renewal: EXPIRED, renewable until the registry's grace ends, and notified. */
async function expire(domain: DomainRecord, at: Date, rules: Rules, reason: string): Promise<Counted | undefined> {
  const process = await domainProcess(domain, jobUser, 'expire', at, {}, undefined, { reason });
  const graceUntil = daysAfter(domain.expiryDate, rules.graceDays);
  const status = [...domain.status.filter((s) => s !== 'OK'), 'EXPIRED'];
  const after: DomainRecord = { ...domain, status, updatedDate: later(domain, process.updatedDate) };
  return (await record(domain, after, process, domainExpiryReport(process, domain.expiryDate, 0, false, graceUntil), at, rules))
    ? 'expired'
    : undefined;
}
