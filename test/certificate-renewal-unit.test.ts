import { describe, expect, it } from 'vitest';
import type { Issued } from '../shared/certificates/authority.ts';
import { CsrRejected, type ParsedCsr } from '../shared/certificates/csr.ts';
import { issuedCertificate, requestView } from '../shared/certificates/issue.ts';
import type { RenewBody } from '../shared/certificates/renew-request.ts';
import { priceRenewal } from '../shared/certificates/renewal-price.ts';
import { checkRenewal } from '../shared/certificates/renewal-rules.ts';
import { dcvRecordsToAdd, maxZoneCandidates, zoneCandidates, zoneNamesOf } from '../shared/certificates/zones.ts';
import { ValidationError, type Violation } from '../shared/errors.ts';
import type { CertificateProduct } from '../shared/model/certificate.ts';
import type { CertificateProcessState, DcvState, Validations } from '../shared/model/certificate-process.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';
import type { PriceList } from '../shared/pricing/index.ts';

/** The renewal's pure parts: the product's rules, the price, the issued record, the DCV records for managed zones. */

const dv: CertificateProduct = {
  product: 'ssl_test_dv',
  authority: 'sectigo',
  name: 'Test DV',
  validationType: 'DV',
  certificateType: 'SINGLE_DOMAIN',
  periods: [12, 24],
  includedDomains: 1,
  maxDomains: 1,
  wildcard: false,
  authKey: true,
  renewalWindowDays: 90,
  requiredFields: [],
  optionalFields: ['domainName'],
};
const multi: CertificateProduct = { ...dv, product: 'ssl_test_multi', certificateType: 'MULTI_DOMAIN', includedDomains: 2, maxDomains: 3 };
const ov: CertificateProduct = {
  ...dv,
  product: 'ssl_test_ov',
  validationType: 'OV',
  requiredFields: ['organization', 'approver'],
  optionalFields: ['domainName', 'department', 'city'],
};

function parsedCsr(commonName: string | undefined, san: string[], subject: ParsedCsr['summary']['subject'] = {}): ParsedCsr {
  return {
    der: new Uint8Array(),
    summary: {
      ...(commonName !== undefined ? { commonName } : {}),
      san,
      subject,
      keyType: 'RSA',
      keySize: 2048,
      signatureAlgorithm: 'sha256WithRSAEncryption',
      sha256: 'ab'.repeat(32),
    },
  };
}

const body = (fields: Partial<RenewBody> = {}): RenewBody => ({ period: 12, csr: 'PEM', ...fields });

/** The ValidationError `run` throws: its message and violations. */
function refusal(run: () => unknown): { message: string; violations: Violation[] } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return { message: (error as ValidationError).message, violations: (error as ValidationError).extra.violations as Violation[] };
  }
  throw new Error('the request was accepted');
}

describe('a renewal against its product', () => {
  it('certifies, on a single-domain product, the common name and its www counterpart for free, by DNS, naming the CSR names left out', () => {
    const csr = parsedCsr('www.shop.nl', ['www.shop.nl', 'shop.nl', 'blog.shop.nl']);
    expect(checkRenewal(dv, body(), csr)).toEqual({
      csr,
      commonName: 'www.shop.nl',
      names: ['www.shop.nl'],
      allNames: ['www.shop.nl', 'shop.nl'],
      dcv: [
        { commonName: 'www.shop.nl', type: 'DNS' },
        { commonName: 'shop.nl', type: 'DNS' },
      ],
      mismatches: [{ field: 'csr', message: 'lists names this single-domain product will not certify: blog.shop.nl' }],
      subject: {},
    });
  });

  it('certifies, on a multi-domain product, the SANs of the request over the CSR, saying how they differ', () => {
    const csr = parsedCsr('www.shop.nl', ['www.shop.nl', 'blog.shop.nl']);
    const checked = checkRenewal(
      multi,
      body({ san: ['www.shop.nl', 'shop.nl', 'api.shop.nl'], dcv: [{ commonName: 'shop.nl', type: 'EMAIL', email: 'admin@shop.nl' }] }),
      csr,
    );
    expect(checked).toEqual({
      csr,
      commonName: 'www.shop.nl',
      names: ['www.shop.nl', 'shop.nl', 'api.shop.nl'],
      allNames: ['www.shop.nl', 'shop.nl', 'api.shop.nl'],
      dcv: [
        { commonName: 'www.shop.nl', type: 'DNS' },
        { commonName: 'shop.nl', type: 'EMAIL', email: 'admin@shop.nl' },
        { commonName: 'api.shop.nl', type: 'DNS' },
      ],
      mismatches: [{ field: 'san', message: "overrides the CSR's names: adds shop.nl, api.shop.nl; leaves out blog.shop.nl" }],
      subject: {},
    });
  });

  it('reports every violation at once, in the order the request reads', () => {
    const request = body({
      period: 36,
      coc: '12345678',
      domainName: '*.shop.nl',
      san: ['a.shop.nl'],
      dcv: [
        { commonName: 'other.nl', type: 'DNS' },
        { commonName: '*.shop.nl', type: 'FILE', email: 'admin@shop.nl' },
      ],
    });
    expect(refusal(() => checkRenewal(dv, request, parsedCsr('www.shop.nl', ['www.shop.nl'])))).toEqual({
      message: "The request breaks the product's rules.",
      violations: [
        { field: 'period', message: 'must be one of 12, 24 months for product ssl_test_dv', value: 36 },
        { field: 'coc', message: 'is not used by product ssl_test_dv' },
        { field: 'san', message: 'is only for multi-domain products; ssl_test_dv is single-domain' },
        { field: 'domainName', message: 'is a wildcard; product ssl_test_dv does not support wildcards' },
        { field: 'dcv[0].commonName', message: 'is not a name of this request (*.shop.nl)', value: 'other.nl' },
        { field: 'dcv[1].email', message: 'is only for EMAIL validation' },
        { field: 'dcv[1].type', message: 'FILE validation is not possible for a wildcard name' },
      ],
    });
  });

  it('reports a refused CSR after the violations of the product, and a CSR without a common name as a missing domainName', () => {
    expect(refusal(() => checkRenewal(dv, body({ period: 36 }), new CsrRejected('is not a PEM encoded CSR')))).toEqual({
      message: "The request breaks the product's rules.",
      violations: [
        { field: 'period', message: 'must be one of 12, 24 months for product ssl_test_dv', value: 36 },
        { field: 'csr', message: 'is not a PEM encoded CSR' },
      ],
    });
    expect(refusal(() => checkRenewal(dv, body(), parsedCsr(undefined, [])))).toEqual({
      message: 'domainName: is required: the CSR has no common name',
      violations: [{ field: 'domainName', message: 'is required: the CSR has no common name' }],
    });
  });

  it('lists a SAN given twice, and too many names for the product', () => {
    const request = body({ san: ['a.shop.nl', 'b.shop.nl', 'a.shop.nl', 'c.shop.nl'] });
    expect(refusal(() => checkRenewal(multi, request, parsedCsr('www.shop.nl', []))).violations).toEqual([
      { field: 'san[2]', message: 'is listed twice', value: 'a.shop.nl' },
      { field: 'san', message: 'holds 4 names with the common name; product ssl_test_multi allows at most 3' },
    ]);
  });

  it('fills the organization fields of an OV product from the request, else the CSR: the four CSR overrides always, others where the product uses them', () => {
    const approver = { firstName: 'Anna', lastName: 'de Vries', email: 'anna@shop.nl', voice: '+31.201234567' };
    const csr = parsedCsr('www.shop.nl', [], { organizationalUnit: 'Web', locality: 'Utrecht', state: 'UT', country: 'NL' });
    expect(ov.optionalFields).not.toContain('state');
    expect(checkRenewal(ov, body({ organization: 'Shop B.V.', approver }), csr).subject).toEqual({
      organization: 'Shop B.V.',
      department: 'Web',
      state: 'UT',
      city: 'Utrecht',
      country: 'NL',
    });
    expect(checkRenewal(ov, body({ organization: 'Shop B.V.', approver, state: 'Utrecht' }), csr).subject.state).toBe('Utrecht');
  });

  it('looks for zones from each name up to its registrable domain only, shallowest first, at most 6 labels deep and 100 names', () => {
    expect(zoneNamesOf('*.a.b.shop.nl')).toEqual(['shop.nl', 'b.shop.nl', 'a.b.shop.nl']);
    expect(zoneCandidates(['www.shop.nl', 'api.shop.nl', 'shop.nl', 'x.other.nl'])).toEqual([
      'shop.nl',
      'other.nl',
      'www.shop.nl',
      'api.shop.nl',
      'x.other.nl',
    ]);
    const deep = `${Array.from({ length: 120 }, (_, i) => `l${i}`).join('.')}.shop.nl`;
    expect(zoneNamesOf(deep)).toEqual([
      'shop.nl',
      'l119.shop.nl',
      'l118.l119.shop.nl',
      'l117.l118.l119.shop.nl',
      'l116.l117.l118.l119.shop.nl',
    ]);
    const manyDeep = Array.from({ length: 49 }, (_, n) => `n${n}.${deep}`);
    expect(zoneCandidates(manyDeep)).toEqual(zoneNamesOf(deep));
    const manyDomains = Array.from({ length: 150 }, (_, n) => `www.shop${n}.nl`);
    const capped = zoneCandidates(manyDomains);
    expect(capped).toHaveLength(maxZoneCandidates);
    expect(capped).toEqual(manyDomains.slice(0, 100).map((n) => n.slice(4)));
  });
});

describe('the price of a renewal', () => {
  const at = new Date('2026-06-01T00:00:00Z');
  const price = (action: string, amount: number) => ({
    customer: 'demo',
    product: 'ssl_test_multi',
    action,
    currency: 'EUR' as const,
    price: amount,
    fromDate: '2026-01-01T00:00:00Z',
  });
  const list: PriceList = { prices: [price('RENEW', 1000), price('EXTRA_DOMAIN', 300), price('EXTRA_WILDCARD', 2000)], promos: [] };

  it('charges per year: the renewal, each name beyond the included ones, and each wildcard', () => {
    expect(priceRenewal(multi, ['a.nl', 'b.nl', 'c.nl', '*.d.nl'], 24, list, at)).toEqual({
      command: 'CertificateRenew',
      quote: {
        total: 2 * 1000 + 2 * 300 + 2 * 2000,
        currency: 'EUR',
        billables: [
          { product: 'ssl_test_multi', action: 'RENEW', quantity: 2, amount: 1000, providerName: 'sectigo', refundable: true, total: 2000 },
          {
            product: 'ssl_test_multi',
            action: 'EXTRA_DOMAIN',
            quantity: 2,
            amount: 300,
            providerName: 'sectigo',
            refundable: true,
            total: 600,
          },
          {
            product: 'ssl_test_multi',
            action: 'EXTRA_WILDCARD',
            quantity: 2,
            amount: 2000,
            providerName: 'sectigo',
            refundable: true,
            total: 4000,
          },
        ],
      },
    });
  });

  it('refuses a renewal the price list has no price for', () => {
    const renewOnly: PriceList = { prices: [price('RENEW', 1000)], promos: [] };
    expect(refusal(() => priceRenewal(multi, ['a.nl', '*.d.nl'], 12, renewOnly, at))).toEqual({
      message: 'Product ssl_test_multi has no EXTRA_WILDCARD price on your price list.',
      violations: [{ field: 'product', message: 'has no EXTRA_WILDCARD price for your account' }],
    });
  });
});

describe('an issued certificate', () => {
  const state = {
    product: 'ssl_test_dv',
    commonName: 'www.shop.nl',
    san: ['shop.nl'],
    validationLevel: 'OV',
    period: 12,
    uniqueValue: 'u1',
    subject: { organization: 'Shop B.V.' },
    csrSummary: parsedCsr('www.shop.nl', []).summary,
    validations: { organization: 'VALIDATED', dcv: [] },
  } as unknown as CertificateProcessState;

  it('is the process state as the authority issued it', () => {
    const issued: Issued = { serialNumber: 'S1', startDate: '2026-06-01T00:00:00Z', expiryDate: '2027-06-01T00:00:00Z' };
    expect(issuedCertificate({ certificate: 7, process: 3 }, 'demo', state, issued, '2026-06-01T00:00:00Z')).toEqual({
      id: 7,
      customer: 'demo',
      product: 'ssl_test_dv',
      commonName: 'www.shop.nl',
      san: ['www.shop.nl', 'shop.nl'],
      status: 'ACTIVE',
      serialNumber: 'S1',
      startDate: '2026-06-01T00:00:00Z',
      expiryDate: '2027-06-01T00:00:00Z',
      organization: 'Shop B.V.',
      keyType: 'RSA-2048',
      processId: 3,
      createdDate: '2026-06-01T00:00:00Z',
      updatedDate: '2026-06-01T00:00:00Z',
    });
  });

  it('is asked of the authority with the request as stored, and the validations as they now stand', () => {
    const at = new Date('2026-06-01T00:00:00Z');
    const now: Validations = { organization: 'VALIDATED', dcv: [] };
    expect(requestView(3, state, at, now)).toEqual({
      processId: 3,
      validationLevel: 'OV',
      period: 12,
      csrSha256: 'ab'.repeat(32),
      uniqueValue: 'u1',
      names: ['www.shop.nl', 'shop.nl'],
      organization: 'Shop B.V.',
      requestedAt: at,
      validations: now,
    });
  });
});

describe('the DCV records of a renewal', () => {
  const zone = (records: ZoneRecord['records']): ZoneRecord => ({
    id: 1,
    domainName: 'shop.nl',
    customer: 'demo',
    managed: true,
    service: 'BASIC',
    dnssec: false,
    hostMaster: 'hostmaster@shop.nl',
    refresh: 1,
    retry: 1,
    expire: 1,
    ttl: 1,
    records,
    createdDate: '2026-01-01T00:00:00Z',
  });
  const entry = (commonName: string, dnsRecord: string, inZone = 'shop.nl'): DcvState => ({
    commonName,
    type: 'DNS',
    status: 'WAITING',
    caaRecordStatus: 'UNKNOWN',
    dnsRecord,
    dnsType: 'CNAME',
    dnsContents: `${dnsRecord}.target`,
    zone: inZone,
  });

  it('go into each managed zone once, leaving out records the zone holds and names without a managed zone', () => {
    const shop = zone([{ name: '_held.shop.nl', type: 'CNAME', content: '_held.shop.nl.target', ttl: 300 }]);
    const zones = new Map<string, ZoneRecord | undefined>([
      ['www.shop.nl', shop],
      ['shop.nl', shop],
      ['api.shop.nl', shop],
      ['other.nl', undefined],
    ]);
    const validations: Validations = {
      dcv: [
        entry('www.shop.nl', '_a.www.shop.nl'),
        entry('shop.nl', '_held.shop.nl'),
        entry('api.shop.nl', '_a.www.shop.nl'),
        entry('other.nl', '_o.other.nl', 'other.nl'),
      ],
    };
    expect(dcvRecordsToAdd(validations, zones)).toEqual([
      ['shop.nl', [{ name: '_a.www.shop.nl', type: 'CNAME', content: '_a.www.shop.nl.target', ttl: 300 }]],
    ]);
    expect(dcvRecordsToAdd({ dcv: [entry('shop.nl', '_held.shop.nl')] }, zones)).toEqual([]);
  });
});
