import { allocateProcessId } from '../db/repositories/processes.ts';
import { listDueZones, recordZonePremiumEnded, recordZoneYearCharged, settleZoneDue } from '../db/repositories/zone-premium.ts';
import { getZoneHead, type ZoneHead } from '../db/repositories/zones.ts';
import { workThroughDue } from '../jobs/due-listing.ts';
import { logger } from '../logger.ts';
import { zonePremiumEnded, zonePremiumRenewed } from '../model/notification.ts';
import type { ProcessRecord } from '../model/process.ts';
import { premiumPaidUntil } from '../model/zone.ts';
import { buildQuote, listPriceLine, type PriceList, type QuoteBody } from '../pricing/index.ts';
import { toWireTime } from '../time.ts';
import { premiumDnsProduct } from './premium-charge.ts';
import { nextSerial } from './zone-edit.ts';

/**
 * The later years of PREMIUM zones (docs/zones-api.md, "Later years of a PREMIUM zone"), a part of
 * every run of the expiry job (shared/domains/expiry.ts), as the domains' auto-renewal is:
 *
 * - A PREMIUM zone is paid until its `paidUntil` (twelve months after the charge that made it
 *   PREMIUM). The run reads the zones whose `paidUntil` has passed through the due listing
 *   (keys.zonesDue: one gsi1 partition by that time; never a scan), and reads each zone itself.
 * - It charges the next year at the customer's own price list: `dns_premium` RENEW, or where the
 *   list has no RENEW price, `dns_premium` CREATE (the product's price per 12 months). No
 *   acknowledgment: a zone kept PREMIUM is the customer's standing consent, as a domain's autoRenew.
 *   The charge is a COMPLETED process (`dnsZone`/`renew`, its billables), the notification
 *   DnsZonePremiumRenewedEvent, and the zone's `paidUntil` a year on, in one transaction with the
 *   year's charge mark (`<zone id>/<paidUntil before>`, put only if absent) under the zone's
 *   `paidUntil` as read: a year is charged once, whatever crashes, retries and overlapping runs.
 * - A customer whose list prices neither cannot pay it: the zone becomes BASIC (its records kept
 *   as they are; its next update is checked under BASIC's bounds), with a process
 *   (`dnsZone`/`update`) and the notification DnsZonePremiumEndedEvent: never PREMIUM for free.
 * - A due entry whose zone is gone, BASIC, or paid further is moved or removed.
 */

export interface ZoneRenewalRun {
  read: number;
  charged: number;
  ended: number;
  failed: number;
  /** Whether due zones were left for the next run (the budget ran out). */
  more: boolean;
}

/** The user a process of the job is recorded for (as the domains' expiry steps). */
const jobUser = 'system/expiry';

/** One run: pages of `pageSize` due zones, `concurrency` at a time, until none is due or `deadline` (ms since the epoch) nears. */
export async function runZoneRenewals(
  at: Date,
  options: { deadline: number; pageSize?: number; concurrency?: number; prices: (customer: string, product: string) => Promise<PriceList> },
): Promise<ZoneRenewalRun> {
  const run: ZoneRenewalRun = { read: 0, charged: 0, ended: 0, failed: 0, more: false };
  const pageSize = options.pageSize ?? 100;
  const concurrency = options.concurrency ?? 16;
  const worked = await workThroughDue(
    (start) => listDueZones(toWireTime(at), pageSize, start),
    async (entry) => {
      try {
        const outcome = await renewZone(entry, at, options.prices);
        if (outcome) run[outcome] += 1;
      } catch (error) {
        run.failed += 1;
        logger.warn('zone year not charged', { job: 'domain-expiry', domainName: entry.domainName, error: error as Error });
      }
    },
    { deadline: options.deadline, concurrency },
  );
  run.read = worked.read;
  run.more = worked.more;
  return run;
}

/** The price of a PREMIUM zone's next year: RENEW, or CREATE where the list has no RENEW; undefined where it has neither. */
export function yearQuote(list: PriceList, at: Date): QuoteBody | undefined {
  const charge = { product: premiumDnsProduct, quantity: 1, providerName: 'dns' };
  const priced =
    listPriceLine(list, { ...charge, action: 'RENEW' }, at, false) ?? listPriceLine(list, { ...charge, action: 'CREATE' }, at, false);
  return priced ? buildQuote('RenewDnsZoneCommand', priced.currency, [priced.line]) : undefined;
}

/** One due zone, read fresh (its entry may be stale): charged, ended, or its entry settled (undefined). */
async function renewZone(
  entry: { domainName: string; dueDate: string },
  at: Date,
  prices: (customer: string, product: string) => Promise<PriceList>,
): Promise<'charged' | 'ended' | undefined> {
  const head = await getZoneHead(entry.domainName, true);
  const paidUntil = head?.zone.service === 'PREMIUM' ? head.zone.paidUntil : undefined;
  if (!head || paidUntil === undefined) {
    await settleZoneDue(entry.domainName, entry.dueDate, undefined);
    return undefined;
  }
  if (paidUntil > toWireTime(at)) {
    if (paidUntil !== entry.dueDate) await settleZoneDue(entry.domainName, entry.dueDate, paidUntil);
    return undefined;
  }
  const quote = yearQuote(await prices(head.zone.customer, premiumDnsProduct), at);
  if (!quote) {
    const reason = `the price list has no ${premiumDnsProduct} price (RENEW or CREATE)`;
    const process = await zoneProcess(head, 'update', at, { service: 'BASIC' }, { reason, paidUntil });
    // Served on BASIC's name servers from now on: a change that reaches DNS, so its SOA serial goes up.
    const change = { at: process.updatedDate, serial: nextSerial(head.zone, process.updatedDate) };
    return (await recordZonePremiumEnded(head, change, process, zonePremiumEnded(process, paidUntil, reason))) ? 'ended' : undefined;
  }
  // The next year follows the last one without a gap, whenever the run comes (a run after an outage charges each year once).
  const next = premiumPaidUntil(paidUntil);
  const process = await zoneProcess(head, 'renew', at, { service: 'PREMIUM' }, { periodStart: paidUntil, paidUntil: next }, quote);
  return (await recordZoneYearCharged(head, next, process, zonePremiumRenewed(process, next))) ? 'charged' : undefined;
}

/** A completed process of the job about a zone, charging what its quote says. */
async function zoneProcess(
  head: ZoneHead,
  action: 'renew' | 'update',
  at: Date,
  command: Record<string, unknown>,
  details: Record<string, unknown>,
  quote?: QuoteBody,
): Promise<ProcessRecord> {
  const { zone } = head;
  const wireAt = toWireTime(at);
  return {
    id: await allocateProcessId(),
    customer: zone.customer,
    user: jobUser,
    type: 'dnsZone',
    action,
    identifier: zone.domainName,
    status: 'COMPLETED',
    createdDate: wireAt,
    updatedDate: wireAt,
    billables: quote?.quote.billables ?? [],
    command: { name: zone.domainName, ...command },
    ...(quote?.quote.currency !== undefined ? { currency: quote.quote.currency } : {}),
    details: { zoneId: zone.id, ...details },
  };
}
