/**
 * Pricing: price lists, currency conversion, quotes and billable acknowledgment.
 *
 * Product naming (every use case that prices something follows it):
 * - domains: `domain_<extension>` (`domain_com`, `domain_nl`, `domain_co.uk`; the registry's
 *   longest-matching extension, lower-case) with the actions CREATE, RENEW, TRANSFER, RESTORE and
 *   PRIVACY_PROTECT; build it with `domainProduct(extension)`.
 * - certificates: the certificate product's own name, which starts with `ssl_` (`ssl_sectigo_dv`,
 *   `ssl_sectigo_dv_multi`, `ssl_sectigo_ov`, `ssl_digicert_ev`) with the actions REQUEST, RENEW,
 *   EXTRA_DOMAIN and EXTRA_WILDCARD.
 * - prices are per unit and per 12 months; a billable for several years carries the number of
 *   years (or of extra names times years) as its quantity.
 *
 * Typical use in a use case that charges (transfer, renew):
 *   const list = await getPriceList(customer);                       // one Query
 *   const line = listPriceLine(list, { product: domainProduct('com'), action: 'TRANSFER', quantity: 1, providerName: 'verisign' }, now());
 *   const body = buildQuote('DomainTransfer', line.currency, [line.line, ...premiumLines]);
 *   if (quoteOnly) return { quote: body };                          // an Outcome: nothing written
 *   assertAcknowledged(body, list, command.billables, now());         // BillableAcknowledgmentNeeded if not
 */
export * from './currency.ts';
export * from './price-list.ts';
export * from './products.ts';
export * from './quote.ts';
export * from './rates.ts';
