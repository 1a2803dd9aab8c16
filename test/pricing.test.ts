import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { type AppError, BillableAcknowledgmentNeeded, ValidationError } from '../shared/errors.ts';
import type { PriceRecord, PromoRecord } from '../shared/model/price.ts';
import { Billable, QuoteBody, QuoteLine } from '../shared/model/quote.ts';
import type { RateRecord } from '../shared/model/rate.ts';
import {
  assertAcknowledged,
  billablesNeedingAcknowledgment,
  buildQuote,
  convertCents,
  currentPrice,
  currentPrices,
  domainProduct,
  effectivePrice,
  listPriceLine,
  openPromos,
  type PriceList,
  promoApplies,
  scheduledPriceChanges,
} from '../shared/pricing/index.ts';

const at = new Date('2026-11-21T12:00:00Z');

function price(product: string, action: string, amount: number, fromDate: string, currency: 'EUR' | 'USD' = 'EUR'): PriceRecord {
  return { customer: 'demo', product, action, currency, price: amount, fromDate };
}
function promo(product: string, action: string, amount: number, fromDate: string, endDate: string, active: boolean): PromoRecord {
  return { customer: 'demo', product, action, currency: 'EUR', price: amount, fromDate, endDate, active };
}

const list: PriceList = {
  prices: [
    price('domain_com', 'RENEW', 999, '2025-01-01T00:00:00Z'),
    price('domain_com', 'RENEW', 1049, '2025-09-01T00:00:00Z'),
    price('domain_com', 'RENEW', 1129, '2027-09-01T00:00:00Z'),
    price('domain_com', 'TRANSFER', 1049, '2025-09-01T00:00:00Z'),
    price('domain_co.uk', 'TRANSFER', 0, '2026-01-01T00:00:00Z'),
    price('domain_nl', 'CREATE', 449, '2026-01-01T00:00:00Z'),
    price('domain_net', 'CREATE', 1249, '2026-11-21T12:00:00Z'),
  ],
  promos: [
    promo('domain_nl', 'CREATE', 99, '2026-11-01T00:00:00Z', '2027-07-01T00:00:00Z', true),
    promo('domain_com', 'TRANSFER', 799, '2026-10-01T00:00:00Z', '2027-07-01T00:00:00Z', false),
    promo('domain_com', 'RENEW', 899, '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', true),
  ],
};

describe('product names', () => {
  it('names domain products domain_<extension> and certificate products ssl_<product>', () => {
    expect(domainProduct('com')).toBe('domain_com');
    expect(domainProduct('.CO.UK')).toBe('domain_co.uk');
    expect(() => domainProduct('co..uk')).toThrow(RangeError);
  });
});

describe('price resolution', () => {
  it('takes the latest price whose fromDate is not after now, per product and action, in stable order', () => {
    expect(currentPrices(list, at)).toEqual([
      price('domain_co.uk', 'TRANSFER', 0, '2026-01-01T00:00:00Z'),
      price('domain_com', 'RENEW', 1049, '2025-09-01T00:00:00Z'),
      price('domain_com', 'TRANSFER', 1049, '2025-09-01T00:00:00Z'),
      price('domain_net', 'CREATE', 1249, '2026-11-21T12:00:00Z'),
      price('domain_nl', 'CREATE', 449, '2026-01-01T00:00:00Z'),
    ]);
  });

  it('treats a price starting exactly now as in force and one a second later as scheduled', () => {
    expect(currentPrice(list, 'domain_net', 'CREATE', at)?.price).toBe(1249);
    expect(currentPrice(list, 'domain_net', 'CREATE', new Date('2026-11-21T11:59:59Z'))).toBeUndefined();
    expect(scheduledPriceChanges(list, new Date('2026-11-21T11:59:59Z')).map((p) => p.product)).toEqual(['domain_com', 'domain_net']);
  });

  it('lists only future prices as scheduled changes', () => {
    expect(scheduledPriceChanges(list, at)).toEqual([price('domain_com', 'RENEW', 1129, '2027-09-01T00:00:00Z')]);
  });

  it('answers undefined for a product the list does not have', () => {
    expect(currentPrice(list, 'domain_org', 'RENEW', at)).toBeUndefined();
    expect(effectivePrice(list, 'domain_org', 'RENEW', at)).toBeUndefined();
  });

  it('applies a promo only when active and inside [fromDate, endDate)', () => {
    const [nl, com, expired] = list.promos as [PromoRecord, PromoRecord, PromoRecord];
    expect(promoApplies(nl, at)).toBe(true);
    expect(promoApplies(nl, new Date('2026-10-31T23:59:59Z'))).toBe(false);
    expect(promoApplies(nl, new Date('2027-07-01T00:00:00Z'))).toBe(false);
    expect(promoApplies(nl, new Date('2027-06-30T23:59:59Z'))).toBe(true);
    expect(promoApplies(com, at)).toBe(false);
    expect(promoApplies(expired, at)).toBe(false);
  });

  it('lists running and upcoming promos, not ended ones', () => {
    expect(openPromos(list, at).map((p) => `${p.product}/${p.action}`)).toEqual(['domain_com/TRANSFER', 'domain_nl/CREATE']);
  });

  it('charges the promo price when an applicable promo undercuts the list price', () => {
    expect(effectivePrice(list, 'domain_nl', 'CREATE', at)).toEqual({
      product: 'domain_nl',
      action: 'CREATE',
      currency: 'EUR',
      price: 99,
      fromDate: '2026-11-01T00:00:00Z',
      promo: list.promos[0],
    });
    expect(effectivePrice(list, 'domain_com', 'TRANSFER', at)).toEqual({
      product: 'domain_com',
      action: 'TRANSFER',
      currency: 'EUR',
      price: 1049,
      fromDate: '2025-09-01T00:00:00Z',
    });
  });
});

describe('currency conversion', () => {
  const rates: RateRecord = { base: 'EUR', date: '2026-11-20', rates: { USD: 1.1523, GBP: 0.87955, JPY: 180.41, X15: 1.5, TWO: 2 } };

  it('converts EUR to USD at the rate, rounding to whole cents', () => {
    expect(convertCents(1049, 'EUR', 'USD', rates)).toBe(1209); // 1208.7627
    expect(convertCents(100, 'EUR', 'USD', rates)).toBe(115); // 115.23
  });

  it('converts USD to EUR by dividing by the rate', () => {
    expect(convertCents(1199, 'USD', 'EUR', rates)).toBe(1041); // 1040.527...
  });

  it('converts between two non-euro currencies with one rounding', () => {
    // 1000 USD cents = 1000 / 1.1523 * 0.87955 GBP cents = 763.29...
    expect(convertCents(1000, 'USD', 'GBP', rates)).toBe(763);
  });

  it('rounds exactly half a cent away from zero', () => {
    const half: RateRecord = { base: 'EUR', date: '2026-11-20', rates: { USD: 1.5, GBP: 2 } };
    expect(convertCents(1, 'EUR', 'USD', half)).toBe(2); // 1.5
    expect(convertCents(3, 'EUR', 'USD', half)).toBe(5); // 4.5
    expect(convertCents(-3, 'EUR', 'USD', half)).toBe(-5); // -4.5
    expect(convertCents(1, 'GBP', 'EUR', half)).toBe(1); // 0.5
    expect(convertCents(-1, 'GBP', 'EUR', half)).toBe(-1); // -0.5
    expect(convertCents(5, 'GBP', 'EUR', half)).toBe(3); // 2.5
  });

  it('is exact where floating point is not (3000 x 1.0835 is 3250.5, not 3250.4999...)', () => {
    const r: RateRecord = { base: 'EUR', date: '2026-11-20', rates: { USD: 1.0835 } };
    expect(3000 * 1.0835).toBeLessThan(3250.5);
    expect(convertCents(3000, 'EUR', 'USD', r)).toBe(3251);
    expect(convertCents(60, 'EUR', 'USD', { ...r, rates: { USD: 1.025 } })).toBe(62); // 61.5
  });

  it('reads rates written with an exponent', () => {
    const tiny: RateRecord = { base: 'EUR', date: '2026-11-20', rates: { XXX: 1e-7, YYY: 2e21 } };
    expect(convertCents(10_000_000, 'EUR', 'XXX', tiny)).toBe(1);
    expect(convertCents(2, 'YYY', 'EUR', tiny)).toBe(0);
  });

  it('leaves an amount in its own currency unchanged', () => {
    expect(convertCents(1049, 'EUR', 'EUR', rates)).toBe(1049);
    expect(convertCents(1049, 'USD', 'USD', { base: 'EUR', date: '2026-11-20', rates: {} })).toBe(1049);
  });

  it('refuses a currency without a stored rate with a ValidationError, never a wrong number', () => {
    expect(() => convertCents(100, 'EUR', 'CAD', rates)).toThrow(ValidationError);
    expect(() => convertCents(100, 'CAD', 'EUR', rates)).toThrow('No CAD exchange rate is stored for 2026-11-20');
  });
});

describe('quotes', () => {
  it('adds up billables as quantity x amount', () => {
    expect(
      buildQuote('DomainTransfer', 'EUR', [
        { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true },
        { product: 'domain_com', action: 'PRIVACY_PROTECT', quantity: 2, amount: 250, providerName: 'verisign', refundable: false },
      ]),
    ).toEqual({
      command: 'DomainTransfer',
      quote: {
        total: 1549,
        currency: 'EUR',
        billables: [
          { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true, total: 1049 },
          {
            product: 'domain_com',
            action: 'PRIVACY_PROTECT',
            quantity: 2,
            amount: 250,
            providerName: 'verisign',
            refundable: false,
            total: 500,
          },
        ],
      },
    });
  });

  it('leaves out currency and billables when the total is 0', () => {
    expect(
      buildQuote('DomainTransfer', 'EUR', [
        { product: 'domain_co.uk', action: 'TRANSFER', quantity: 1, amount: 0, providerName: 'verisign', refundable: true },
      ]),
    ).toEqual({
      command: 'DomainTransfer',
      quote: { total: 0 },
    });
    expect(buildQuote('DomainTransfer', 'EUR', [])).toEqual({ command: 'DomainTransfer', quote: { total: 0 } });
  });

  it('builds bodies that the published quote schemas accept, and that a billable without its total does not pass', () => {
    const body = buildQuote('DomainTransfer', 'EUR', [
      { product: 'domain_com', action: 'TRANSFER', quantity: 2, amount: 1049, providerName: 'verisign', refundable: true },
    ]);
    expect(v.parse(QuoteBody, body)).toEqual(body);
    expect(v.parse(QuoteBody, buildQuote('DomainTransfer', 'EUR', []))).toEqual({ command: 'DomainTransfer', quote: { total: 0 } });
    const line = { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true };
    expect(v.parse(QuoteLine, line)).toEqual(line);
    expect(v.safeParse(Billable, line).success).toBe(false);
    expect(v.safeParse(Billable, { ...line, total: 1049, note: 'extra' }).success).toBe(false);
    const { providerName: _provider, ...anonymous } = line;
    expect(v.safeParse(Billable, { ...anonymous, total: 1049 }).success).toBe(false);
  });

  it('prices a line at the customer own effective price', () => {
    expect(listPriceLine(list, { product: 'domain_nl', action: 'CREATE', quantity: 2, providerName: 'sidn' }, at)).toEqual({
      line: { product: 'domain_nl', action: 'CREATE', quantity: 2, amount: 99, providerName: 'sidn', refundable: true },
      currency: 'EUR',
    });
    expect(listPriceLine(list, { product: 'domain_org', action: 'CREATE', quantity: 1, providerName: 'pir' }, at)).toBeUndefined();
  });
});

describe('billable acknowledgment', () => {
  const standard = { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true };
  const premium = { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 250_000, providerName: 'verisign', refundable: true };
  const restore = { product: 'domain_com', action: 'RESTORE', quantity: 1, amount: 6500, providerName: 'verisign', refundable: false };

  it('needs no acknowledgment when every amount is the customer own price', () => {
    const body = buildQuote('DomainTransfer', 'EUR', [standard]);
    expect(billablesNeedingAcknowledgment(body.quote, list, at)).toEqual([]);
    expect(() => assertAcknowledged(body, list, undefined, at)).not.toThrow();
  });

  it('needs acknowledgment for an amount off the list and for a product the list lacks', () => {
    const body = buildQuote('DomainTransfer', 'EUR', [premium, restore]);
    expect(billablesNeedingAcknowledgment(body.quote, list, at)).toEqual([
      { ...premium, total: 250_000 },
      { ...restore, total: 6500 },
    ]);
  });

  it('needs acknowledgment when the quote is in another currency than the list', () => {
    const body = buildQuote('DomainTransfer', 'USD', [standard]);
    expect(billablesNeedingAcknowledgment(body.quote, list, at)).toHaveLength(1);
  });

  it('refuses without matching billables, carrying the quote in the error', () => {
    const body = buildQuote('DomainTransfer', 'EUR', [premium]);
    let error: unknown;
    try {
      assertAcknowledged(body, list, [{ product: 'domain_com', action: 'RENEW', quantity: 1 }], at);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BillableAcknowledgmentNeeded);
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).type).toBe('BillableAcknowledgmentNeededException');
    expect((error as AppError).extra).toEqual({ quote: body.quote });
  });

  it('refuses a quantity below the quoted one and accepts equal or more (default 1)', () => {
    const body = buildQuote('DomainTransfer', 'EUR', [{ ...premium, quantity: 2 }]);
    expect(() => assertAcknowledged(body, list, [{ product: 'domain_com', action: 'TRANSFER', quantity: 1 }], at)).toThrow(
      BillableAcknowledgmentNeeded,
    );
    expect(() => assertAcknowledged(body, list, [{ product: 'domain_com', action: 'TRANSFER' }], at)).toThrow(BillableAcknowledgmentNeeded);
    expect(() => assertAcknowledged(body, list, [{ product: 'domain_com', action: 'TRANSFER', quantity: 2 }], at)).not.toThrow();
    expect(() => assertAcknowledged(body, list, [{ product: 'domain_com', action: 'TRANSFER', quantity: 5 }], at)).not.toThrow();
  });

  it('requires every line that needs it to be acknowledged', () => {
    const body = buildQuote('DomainTransfer', 'EUR', [premium, restore]);
    expect(() => assertAcknowledged(body, list, [{ product: 'domain_com', action: 'TRANSFER', quantity: 1 }], at)).toThrow(
      BillableAcknowledgmentNeeded,
    );
    expect(() =>
      assertAcknowledged(
        body,
        list,
        [
          { product: 'domain_com', action: 'TRANSFER', quantity: 1 },
          { product: 'domain_com', action: 'RESTORE', quantity: 1 },
        ],
        at,
      ),
    ).not.toThrow();
  });
});
