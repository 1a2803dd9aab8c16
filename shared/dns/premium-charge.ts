import { getProductPrices } from '../db/repositories/prices.ts';
import { allocateProcessId } from '../db/repositories/processes.ts';
import { zoneChargeItems } from '../db/repositories/zone-key-rollover.ts';
import { ValidationError } from '../errors.ts';
import type { ProcessRecord } from '../model/process.ts';
import type { ZoneHeader } from '../model/zone.ts';
import {
  type AcknowledgedBillable,
  assertAcknowledged,
  buildQuote,
  convertCents,
  latestRates,
  listPriceLine,
  type PriceList,
  type QuoteBody,
  type QuoteLine,
} from '../pricing/index.ts';
import { toWireTime } from '../time.ts';
import type { VersionedZone } from './zone-view.ts';

/**
 * The charge of a PREMIUM zone (docs/zones-api.md, "Charging PREMIUM zones"): the product
 * `dns_premium`, action CREATE, one unit (12 months) at the caller's own price list (its
 * currency, its promo where one applies), whenever a zone becomes PREMIUM: a new PREMIUM zone, an
 * update that moves a zone from BASIC to PREMIUM, or a registration's, transfer's or domain update's
 * `zone` that provisions a PREMIUM zone (withPremiumZoneLine: a line of that request's own quote).
 * A zone that stays PREMIUM, or goes back to BASIC, is not charged by a write; its later years are
 * charged by the expiry job (premium-renewal.ts) from its `paidUntil`, a year after the charge.
 *
 * The acknowledgment is the one of every charge (shared/pricing/quote.ts, as for transfers): a line
 * at the caller's own list price needs none, so both clients, which send no `billables` on a zone
 * create, create PREMIUM zones at the price their list shows; an acknowledged `amount` below the
 * price now is refused with the new quote (400 BillableAcknowledgmentNeededException). A price list
 * without `dns_premium` refuses PREMIUM (400 ValidationError naming `service`).
 *
 * The charge is recorded as a process of the caller (`type` dnsZone, `action` create or update,
 * COMPLETED, its `billables` and `currency`; `x-process-id` on the answer), written in the
 * transaction of the zone itself: a write that fails charges nothing, and an Idempotency-Key's
 * replay answers the first write without charging again.
 */

/** Who writes a zone: the customer and the user the charge's process names. */
export interface ZoneCaller {
  customer: string;
  user: string;
}

/** What a zone write answers: its quote (`?quote=true`: nothing written), or the zone as written. */
export type ZoneWriteOutcome = { quote: QuoteBody } | VersionedZone;

/** The price list product of a PREMIUM zone. */
export const premiumDnsProduct = 'dns_premium';

/** Who charges it: the service's premium DNS. */
const premiumDnsProvider = 'dns';

/** The quote command names, as the real API names its domain commands (`CreateDomainCommand`). */
export type ZoneCommandName = 'CreateDnsZoneCommand' | 'UpdateDnsZoneCommand';

/** Whether a write that takes a zone from `before` (none for a new zone) to `after` makes it PREMIUM. */
export function becomesPremium(before: Pick<ZoneHeader, 'service'> | undefined, after: Pick<ZoneHeader, 'service'>): boolean {
  return after.service === 'PREMIUM' && before?.service !== 'PREMIUM';
}

/**
 * The quote of a zone write: `dns_premium` CREATE for a zone that becomes PREMIUM, else nothing
 * (`{total: 0}`). One Query of that product's entries of the caller's list, only when it charges.
 */
export async function quoteZoneWrite(
  customer: string,
  command: ZoneCommandName,
  charged: boolean,
  domainName: string,
  at: Date,
): Promise<{ body: QuoteBody; list?: Awaited<ReturnType<typeof getProductPrices>> }> {
  if (!charged) return { body: buildQuote(command, '', []) };
  const list = await getProductPrices(customer, premiumDnsProduct);
  const line = listPriceLine(
    list,
    { product: premiumDnsProduct, action: 'CREATE', quantity: 1, providerName: premiumDnsProvider },
    at,
    false,
  );
  if (!line) {
    throw new ValidationError(
      `The zone ${domainName} cannot be PREMIUM in this account: its price list has no ${premiumDnsProduct} price.`,
      [{ field: 'service', message: `has no CREATE price (${premiumDnsProduct}) on this account's price list`, value: 'PREMIUM' }],
    );
  }
  return { body: buildQuote(command, line.currency, [line.line]), list };
}

/** What a charged zone write commits with the zone: the process that records the charge, and its id. */
export interface ZoneCharge {
  processId: number;
  items: ReturnType<typeof zoneChargeItems>;
}

/**
 * Checks the acknowledgment (BillableAcknowledgmentNeeded unless every line that needs one is
 * acknowledged) and makes the charge's process, COMPLETED at once, for the transaction of the
 * zone write. Undefined when the write charges nothing.
 */
export async function chargeZoneWrite(
  quoted: Awaited<ReturnType<typeof quoteZoneWrite>>,
  acknowledged: readonly AcknowledgedBillable[] | undefined,
  who: ZoneCaller,
  zone: { domainName: string; id: number; service: string },
  action: 'create' | 'update',
  at: Date,
  reuse?: number,
): Promise<ZoneCharge | undefined> {
  const { body, list } = quoted;
  if (!list) return undefined;
  assertAcknowledged(body, list, acknowledged, at);
  // A write tried again over a zone that changed meanwhile keeps the id it took (nothing was written with it).
  const processId = reuse ?? (await allocateProcessId());
  const date = toWireTime(at);
  const process: ProcessRecord = {
    id: processId,
    customer: who.customer,
    user: who.user,
    type: 'dnsZone',
    action,
    identifier: zone.domainName,
    status: 'COMPLETED',
    createdDate: date,
    updatedDate: date,
    billables: body.quote.billables ?? [],
    ...(body.quote.currency !== undefined ? { currency: body.quote.currency } : {}),
    command: { name: zone.domainName, service: zone.service },
    details: { zoneId: zone.id },
  };
  return { processId, items: zoneChargeItems(process) };
}

/**
 * A domain request's quote with the charge of the PREMIUM zone it provisions (a registration's, a
 * transfer's or a domain update's `zone` with `service: PREMIUM` that creates the zone): the line
 * `dns_premium` CREATE, one unit, at the caller's own price, added to the request's own lines and
 * charged with them (the same process, the same transaction, the same acknowledgment; `refundable`,
 * so a registration or transfer the registry refuses refunds it with the rest). Its price list's
 * entries are added to the request's, so the acknowledgment treats the line as every other one: at
 * the list price it needs none; in another currency than the request's (converted at the day's
 * rates) or acknowledged at an amount below the price now it does (400
 * BillableAcknowledgmentNeededException). A list without `dns_premium` refuses the request (400
 * ValidationError naming `zone.service`). Anything else (no zone, a BASIC one, a zone converted as
 * it is) leaves the quote as it was.
 */
export async function withPremiumZoneLine<Q extends QuoteBody>(
  priced: { quote: Q; list: PriceList },
  zone: { change?: string; service?: string } | undefined,
  customer: string,
  domainName: string,
  at: Date,
): Promise<{ quote: Q; list: PriceList }> {
  if (zone?.change !== 'created' || zone.service !== 'PREMIUM') return priced;
  const own = await getProductPrices(customer, premiumDnsProduct);
  const found = listPriceLine(own, { product: premiumDnsProduct, action: 'CREATE', quantity: 1, providerName: premiumDnsProvider }, at);
  if (!found) {
    throw new ValidationError(
      `The zone of ${domainName} cannot be PREMIUM in this account: its price list has no ${premiumDnsProduct} price.`,
      [{ field: 'zone.service', message: `has no CREATE price (${premiumDnsProduct}) on this account's price list`, value: 'PREMIUM' }],
    );
  }
  const { quote, list } = priced;
  const lines: QuoteLine[] = (quote.quote.billables ?? []).map(({ total: _, ...line }) => line);
  const currency = quote.quote.currency ?? found.currency;
  let line = found.line;
  if (found.currency !== currency) {
    const rates = await latestRates();
    if (!rates)
      throw new ValidationError(`No exchange rates are stored; the ${premiumDnsProduct} price in ${found.currency} cannot be quoted.`);
    line = { ...line, amount: convertCents(line.amount, found.currency, currency, rates) };
  }
  const body = buildQuote(quote.command, currency, [...lines, line]);
  return {
    quote: { ...quote, quote: body.quote },
    list: { prices: [...list.prices, ...own.prices], promos: [...list.promos, ...own.promos] },
  };
}
