import { ValidationError } from '../errors.ts';
import type { CertificateProduct } from '../model/certificate.ts';
import { buildQuote, type Charge, listPriceLine, type PriceList, type QuoteBody, type QuoteLine } from '../pricing/index.ts';

/** The quote's `command` for a certificate renewal. */
export const renewCommand = 'CertificateRenew';

/**
 * The price of a renewal (contract section 4): RENEW per year, EXTRA_DOMAIN / EXTRA_WILDCARD per
 * name beyond the included ones, per year, from the customer's price list at `at`.
 */
export function priceRenewal(product: CertificateProduct, names: string[], period: number, list: PriceList, at: Date): QuoteBody {
  const years = Math.ceil(period / 12);
  const wildcards = names.filter((n) => n.startsWith('*.')).length;
  const plain = names.length - wildcards;
  const wanted: [Charge['action'], number][] = [
    ['RENEW', years],
    ['EXTRA_DOMAIN', Math.max(0, plain - product.includedDomains) * years],
    ['EXTRA_WILDCARD', wildcards * years],
  ];
  const lines: QuoteLine[] = [];
  let currency: string | undefined;
  for (const [action, quantity] of wanted) {
    if (quantity === 0) continue;
    const priced = listPriceLine(list, { product: product.product, action, quantity, providerName: product.authority }, at);
    if (!priced)
      throw new ValidationError(`Product ${product.product} has no ${action} price on your price list.`, [
        { field: 'product', message: `has no ${action} price for your account` },
      ]);
    if (currency !== undefined && priced.currency !== currency) throw new Error(`Mixed currencies on the price list of ${product.product}`);
    currency = priced.currency;
    lines.push(priced.line);
  }
  return buildQuote(renewCommand, currency ?? 'EUR', lines);
}
