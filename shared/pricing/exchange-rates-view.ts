import * as v from 'valibot';

/** `GET /v2/exchangerates/{currency}` (the SDKs' ExchangeRate(s) models): what one unit of `currency` buys of each other currency. */
export const ExchangeRates = v.strictObject({
  currency: v.picklist(['EUR', 'USD']),
  exchangerates: v.pipe(
    v.record(v.string(), v.number()),
    v.description(
      'Units of each currency per unit of `currency`, at the most recent stored daily ECB reference rates (cross rates through the euro to 6 significant digits).',
    ),
  ),
});
export type ExchangeRates = v.InferOutput<typeof ExchangeRates>;
