import type { Principal } from '../auth/principal.ts';
import { getDomain } from '../db/repositories/domains.ts';
import { getProductPrices } from '../db/repositories/prices.ts';
import { findRegistryForDomain } from '../db/repositories/providers.ts';
import { takeCall } from '../db/repositories/rate-limits.ts';
import { TooManyRequests, ValidationError } from '../errors.ts';
import { convertCents, domainProduct, latestRates } from '../pricing/index.ts';
import { registryGateway } from '../registry/select.ts';
import { now } from '../time.ts';
import type { DomainCheckView } from './check-view.ts';

/**
 * `GET /v2/domains/{domainName}/check`: whether a name can be registered, asked of its registry
 * (the sandbox's names, or the upstream account). A name held by any account of this service is
 * not available. A premium name's prices are in the caller's price list currency. Each API key's
 * user may check at most `DOMAIN_CHECK_LIMIT` names a minute (default 100): it reveals availability
 * and costs a registry call; past that 429 with Retry-After, and no other caller is slowed.
 */

/** Checks a minute per caller: `DOMAIN_CHECK_LIMIT` (the stage file's `limits.domainChecksPerMinute`), default 100. */
export function checkLimit(): number {
  const value = Number(process.env.DOMAIN_CHECK_LIMIT ?? 100);
  return Number.isInteger(value) && value > 0 ? value : 100;
}

export async function checkDomain(
  principal: Principal,
  domainName: string,
  options: { languageCode?: string; renewPrice?: boolean },
): Promise<DomainCheckView> {
  const at = now();
  const wait = await takeCall('check', `${principal.customer}/${principal.user}`, checkLimit(), 60, at);
  if (wait > 0) throw new TooManyRequests(wait);
  const found = await findRegistryForDomain(domainName);
  if (!found) {
    throw new ValidationError(`No registry serves the extension of ${domainName}.`, [
      { field: 'domainName', message: 'has an extension no registry serves', value: domainName },
    ]);
  }
  if (await getDomain(domainName)) return { available: false, reason: 'registered' };
  const gateway = await registryGateway();
  const answer = await gateway.checkDomain({
    domainName,
    registry: found.provider.name,
    ...(options.languageCode !== undefined ? { languageCode: options.languageCode } : {}),
    ...(options.renewPrice ? { renewPrice: true } : {}),
  });
  if (!answer.premium || answer.currency === undefined) return answer;
  // The caller's currency: that of its own price for the extension.
  const list = await getProductPrices(principal.customer, domainProduct(found.extension));
  const currency = list.prices[0]?.currency;
  if (currency === undefined || currency === answer.currency) return answer;
  const rates = await latestRates();
  if (!rates) return answer;
  const convert = (cents: number | undefined) =>
    cents === undefined ? undefined : convertCents(cents, answer.currency as string, currency, rates);
  const price = convert(answer.price);
  const renewPrice = convert(answer.renewPrice);
  return {
    ...answer,
    currency,
    ...(price !== undefined ? { price } : {}),
    ...(renewPrice !== undefined ? { renewPrice } : {}),
  };
}
