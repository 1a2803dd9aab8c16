import { nextId } from '../db/repositories/counters.ts';
import { getProductPrices } from '../db/repositories/prices.ts';
import { findRegistryForDomain } from '../db/repositories/providers.ts';
import { ValidationError } from '../errors.ts';
import type { DomainRecord } from '../model/domain.ts';
import { commandOf, type ProcessRecord } from '../model/process.ts';
import type { ProviderRecord } from '../model/provider.ts';
import type { QuoteBody } from '../model/quote.ts';
import { buildQuote, convertCents, domainProduct, latestRates, listPriceLine, type PriceList } from '../pricing/index.ts';
import type { RegistryGateway } from '../registry/gateway.ts';
import { toWireTime } from '../time.ts';

/**
 * What renew and restore (and the expiry job's auto-renewal) share: the registry of the name, the
 * charge at the customer's own price list in its currency (the transfer's rules: a product the list
 * does not price is refused, every line is acknowledged as the transfer's are: shared/pricing/quote.ts)
 * and the completed process that carries the charge in its billables.
 */

/** The registry serving the domain's extension, as read from the table. */
export async function registryOfDomain(domainName: string): Promise<{ extension: string; provider?: ProviderRecord }> {
  const found = await findRegistryForDomain(domainName);
  if (!found) return { extension: domainName.slice(domainName.indexOf('.') + 1) };
  return found;
}

/** A premium name's renewal price per 12 months, in the registry's currency, in cents. */
export interface PremiumPrice {
  currency: string;
  amount: number;
}

/**
 * A premium domain's renewal price as its registry tells it now (its quote of the renewal where
 * the gateway reads it so, else a check with `renewPrice`), or undefined for a domain that is not
 * premium or whose registry renews it at the plain price (it tells no renewal price). Only premium
 * domains ask the registry.
 */
export async function premiumRenewalOf(
  domain: DomainRecord,
  gateway: RegistryGateway,
  periodMonths: number,
): Promise<PremiumPrice | undefined> {
  if (!domain.premium) return undefined;
  if (gateway.premiumRenewal) return gateway.premiumRenewal({ domainName: domain.domainName, registry: domain.registry, periodMonths });
  const check = await gateway.checkDomain({ domainName: domain.domainName, registry: domain.registry, renewPrice: true });
  if (!check.premium || check.renewPrice === undefined || check.currency === undefined) return undefined;
  return { currency: check.currency, amount: check.renewPrice };
}

/**
 * The quote of one domain action (`RENEW` for `years`, `RESTORE` once) at the customer's prices;
 * refused when the list has no price. A premium renewal (`premium`: the registry's renewal price)
 * is charged on the premium product `domain_<extension>_premium` at the registry's price in the
 * list's currency, which the list never holds: it needs the caller's acknowledgment, as a premium
 * registration's CREATE does. A restore whose registry charges a fee (`premium`: the registry's
 * RESTORE charge) above the customer's RESTORE price is charged that fee in the list's currency,
 * on the same product: an amount the list does not hold, so it needs the acknowledgment too. A
 * fee within the customer's price changes nothing.
 */
export async function priceDomainAction(
  domain: DomainRecord,
  extension: string,
  action: 'RENEW' | 'RESTORE',
  quantity: number,
  command: string,
  at: Date,
  prices: (customer: string, product: string) => Promise<PriceList> = getProductPrices,
  premium?: PremiumPrice,
): Promise<{ quote: QuoteBody; list: PriceList }> {
  const product = domainProduct(extension);
  const list = await prices(domain.customer, product);
  const priced = listPriceLine(list, { product, action, quantity, providerName: domain.registry }, at);
  if (!priced) {
    throw new ValidationError(
      `${domain.domainName} cannot be charged ${action}: this account's price list has no ${action} price for ${product}.`,
      [{ field: 'domainName', message: `has no ${action} price (${product}) on this account's price list`, value: domain.domainName }],
    );
  }
  if (premium === undefined) return { quote: buildQuote(command, priced.currency, [priced.line]), list };
  let amount = premium.amount;
  if (premium.currency !== priced.currency) {
    const rates = await latestRates();
    if (!rates) throw new ValidationError(`No exchange rates are stored; the registry's price in ${premium.currency} cannot be quoted.`);
    amount = convertCents(premium.amount, premium.currency, priced.currency, rates);
  }
  if (action === 'RESTORE') {
    const line = amount > priced.line.amount ? { ...priced.line, amount } : priced.line;
    return { quote: buildQuote(command, priced.currency, [line]), list };
  }
  const line = { ...priced.line, product: `${product}_premium`, amount };
  return { quote: buildQuote(command, priced.currency, [line]), list };
}

/** A completed domain process (renew, delete, restore, or a step of the expiry job) charging what its quote says. */
export async function domainProcess(
  domain: DomainRecord,
  user: string,
  action: string,
  at: Date,
  fields: Record<string, unknown>,
  quote?: QuoteBody,
  details?: Record<string, unknown>,
): Promise<ProcessRecord> {
  const wireAt = toWireTime(at);
  return {
    id: await nextId('process'),
    customer: domain.customer,
    user,
    type: 'domain',
    action,
    identifier: domain.domainName,
    status: 'COMPLETED',
    createdDate: wireAt,
    updatedDate: wireAt,
    billables: quote?.quote.billables ?? [],
    command: commandOf({ domainName: domain.domainName, ...fields }),
    ...(quote?.quote.currency !== undefined ? { currency: quote.quote.currency } : {}),
    ...(details ? { details } : {}),
  };
}
