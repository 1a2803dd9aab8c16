import { describe, expect, it } from 'vitest';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { call, otherKey } from './support/api.ts';
import { renew } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { demoBody, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * Requests as the official clients build them (TypeScript `@realtimeregister/api`, PHP
 * `realtimeregister/realtimeregister-php`), through the real handlers: what they send must be
 * taken, and what they read must be there.
 */

/** The zone model of the PHP client, serialised with its unset fields as null. */
const phpZone = { id: null, service: 'BASIC', template: 'demo-template', link: null, master: null, dnssec: false };

const shopCsr = makeCsr({ subject: 'CN=www.demo-shop.nl, C=NL', san: ['www.demo-shop.nl', 'demo-shop.nl'] });

function errorBody(res: { headers: Record<string, string> }, body: Record<string, unknown>) {
  return { ...body, requestId: res.headers['x-request-id'] };
}

describe('a JSON null in an optional body field means the field is absent (contract section 1)', () => {
  it('takes a transfer with the PHP client zone, unset fields null, as the same transfer without them', async () => {
    const nulls = { privacyProtect: null, period: null, autoRenew: null, ns: null, designatedAgent: null, contacts: null };
    const body = { ...demoBody, ...nulls, authcode: 'NL-TRANSFER-2026', zone: phpZone, keyData: null, billables: null, languageCode: null };
    const quote = await transfer('transfer-now.nl', body, { quote: true });
    const withoutNulls = await transfer(
      'transfer-now.nl',
      { ...demoBody, authcode: 'NL-TRANSFER-2026', zone: { service: 'BASIC', template: 'demo-template', dnssec: false } },
      { quote: true },
    );
    expect(quote.status).toBe(200);
    expect(quote.body).toEqual(withoutNulls.body);
    expect(quote.body.plan.zone).toEqual({
      change: 'created',
      exists: false,
      service: 'BASIC',
      template: 'demo-template',
      link: true,
      dnssec: false,
    });

    const done = await transfer('transfer-now.nl', body);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ domainName: 'transfer-now.nl', status: 'completed', type: 'IN' });
    const zone = await call('GET', '/v2/domains/transfer-now.nl/zone');
    expect(zone.body).toMatchObject({ name: 'transfer-now.nl', managed: true, service: 'BASIC', template: 'demo-template', link: true });
  });

  it('takes a renewal quote with the optional fields null', async () => {
    const body = { product: null, period: 12, csr: shopCsr, domainName: null, san: null, approver: null, dcv: null, billables: null };
    const res = await renew(1001, body, { quote: true });
    const plain = await renew(1001, { period: 12, csr: shopCsr }, { quote: true });
    expect(res.status).toBe(200);
    expect(res.body.commonName).toBe('www.demo-shop.nl');
    expect(res.body.quote).toEqual(plain.body.quote);
  });

  it('answers a null in a required field as a ConstraintViolationException on that field, nested ones too', async () => {
    const res = await transfer('transfer-wait.com', { customer: 'demo', registrant: null, contacts: [{ role: 'ADMIN', handle: null }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, {
        type: 'ConstraintViolationException',
        message: 'registrant: must not be null (and 1 more)',
        violations: [
          { field: 'registrant', message: 'must not be null' },
          { field: 'contacts[0].handle', message: 'must not be null' },
        ],
      }),
    );
  });

  it('answers a null list item as a violation on that item', async () => {
    const res = await transfer('transfer-wait.com', { ...demoBody, ns: ['ns1.example.com', null] });
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([{ field: 'ns[1]', message: 'must not be null' }]);
  });

  it('still refuses a property the operation does not define, null or not', async () => {
    const res = await transfer('transfer-wait.com', { ...demoBody, colour: null });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, { type: 'UnrecognizedPropertyException', message: "Unrecognized property 'colour'.", property: 'colour' }),
    );
  });
});

describe('zone.id names the zone a transfer converts (contract 3.1)', () => {
  const wait = { ...demoBody, authcode: 'COM-TRANSFER-2026' };

  it('converts the zone zone.id names when it is the domain zone, as the PHP client sends it', async () => {
    const zone = { id: 104, service: 'BASIC', template: null, link: null, master: null, dnssec: false };
    const res = await transfer('transfer-wait.com', { ...wait, zone }, { quote: true });
    expect(res.status).toBe(200);
    expect(res.body.plan.zone).toEqual({ change: 'converted', exists: true, service: 'BASIC', dnssec: false });
  });

  it('answers 400 when zone.id is not the zone found for the domain', async () => {
    const res = await transfer('transfer-wait.com', { ...wait, zone: { id: 101 } }, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, {
        type: 'ValidationError',
        message: 'The zone values do not match the existing zone of this domain.',
        violations: [{ field: 'zone.id', message: 'is not the zone of this domain (104); leave it empty or give that id', value: 101 }],
      }),
    );
  });

  it('answers 400 when zone.id names a zone but the domain has none of the caller', async () => {
    const res = await transfer('transfer-foa.net', { ...demoBody, authcode: 'NET-TRANSFER-2026', zone: { id: 104 } }, { quote: true });
    expect(res.status).toBe(400);
    const message = 'names no zone of yours for this domain, which has none; leave it out to create one';
    expect(res.body).toEqual(
      errorBody(res, { type: 'ValidationError', message: `zone.id: ${message}`, violations: [{ field: 'zone.id', message, value: 104 }] }),
    );
  });

  it('refuses a zone.id that is not a positive integer', async () => {
    const res = await transfer('transfer-wait.com', { ...wait, zone: { id: 'abc' } }, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ConstraintViolationException');
    expect(res.body.violations).toEqual([{ field: 'zone.id', message: 'expected number but received "abc"', value: 'abc' }]);
  });
});

describe('billables as the real API writes them (contract section 4)', () => {
  it('names the provider of every billable in a quote: the registry of a domain, the authority of a certificate', async () => {
    const domain = await transfer(
      'transfer-wait.com',
      { ...demoBody, authcode: 'COM-TRANSFER-2026', privacyProtect: true },
      { quote: true },
    );
    expect(domain.body.quote.billables).toEqual([
      { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true, total: 1049 },
      {
        product: 'domain_com',
        action: 'PRIVACY_PROTECT',
        quantity: 1,
        amount: 250,
        providerName: 'verisign',
        refundable: true,
        total: 250,
      },
    ]);
    const certificate = await renew(1001, { period: 12, csr: shopCsr }, { quote: true });
    expect(certificate.body.quote.billables).toEqual([
      { product: 'ssl_sectigo_dv', action: 'RENEW', quantity: 1, amount: 1295, providerName: 'sectigo', refundable: true, total: 1295 },
    ]);
  });

  it('takes an acknowledgment built from a real quote, every billable echoed exactly as quoted', async () => {
    const body = { ...demoBody, authcode: 'COM-TRANSFER-2026' };
    const quoted = await transfer('transfer-premium.com', body, { quote: true });
    expect(quoted.body.quote.billables).toEqual([
      { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 45000, providerName: 'verisign', refundable: true, total: 45000 },
    ]);
    const refused = await transfer('transfer-premium.com', body);
    expect(refused.body.type).toBe('BillableAcknowledgmentNeededException');
    const accepted = await transfer('transfer-premium.com', { ...body, billables: quoted.body.quote.billables });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ domainName: 'transfer-premium.com', status: 'completed' });
  });
});

describe('transferContacts as one value (contract 3.1)', () => {
  it('takes a single value as a list of one, as the TypeScript and PHP clients send it, and records it', async () => {
    await sandboxDomain('one-contact.com');
    const res = await transfer('one-contact.com', { ...demoBody, authcode: 'TEST-CODE', transferContacts: 'ADMIN' });
    expect(res.status).toBe(202);
    const process = await getProcess(Number(res.headers['x-process-id']), 'demo');
    expect(process?.details).toMatchObject({ transferContacts: ['ADMIN'] });
  });

  it('still takes a list, and names the wrong value or item', async () => {
    const list = await transfer(
      'transfer-wait.com',
      { ...demoBody, authcode: 'COM-TRANSFER-2026', transferContacts: ['REGISTRANT', 'ADMIN'] },
      { quote: true },
    );
    expect(list.status).toBe(200);
    const one = await transfer('transfer-wait.com', { ...demoBody, transferContacts: 'OWNER' }, { quote: true });
    expect(one.body.violations).toEqual([
      { field: 'transferContacts', message: 'must be REGISTRANT or ADMIN, or a list of them', value: 'OWNER' },
    ]);
    const item = await transfer('transfer-wait.com', { ...demoBody, transferContacts: ['ADMIN', 'OWNER'] }, { quote: true });
    expect(item.body.violations).toEqual([{ field: 'transferContacts[1]', message: 'must be REGISTRANT or ADMIN', value: 'OWNER' }]);
    const twice = await transfer('transfer-wait.com', { ...demoBody, transferContacts: ['ADMIN', 'ADMIN'] }, { quote: true });
    expect(twice.body.violations).toEqual([{ field: 'transferContacts', message: 'must not list a contact twice' }]);
  });
});

describe("the PHP client's process listing", () => {
  // The other customer's processes: the tests above start processes of demo.
  const key = otherKey;
  it('list() sends no total and reads one; search is q; export() sends export=true and reads the entities', async () => {
    // processes->list(10, 0, null, ['status' => 'RUNNING']): the parameters first, then limit and offset.
    const listed = await call('GET', '/v2/processes?status=RUNNING&limit=10&offset=0', { key });
    expect(listed.status).toBe(200);
    expect(listed.body.pagination).toEqual({ limit: 10, offset: 0, total: 1 });
    // processes->list(null, null, 'other-site'): the search is `q`.
    // 601, and 201: the completed request that issued certificate 2001 (other-site.com).
    const searched = await call('GET', '/v2/processes?q=other-site', { key });
    expect(searched.body.entities.map((p: { id: number }) => p.id)).toEqual([601, 201]);
    expect(searched.body.pagination.total).toBe(2);
    // processes->export(['type' => 'certificate']): every match, identifying fields.
    const exported = await call('GET', '/v2/processes?type=certificate&export=true', { key });
    expect(exported.status).toBe(200);
    expect(exported.body.entities).toEqual([
      { id: 601, type: 'certificate', action: 'request', identifier: 'blog.other-site.com', status: 'RUNNING' },
      { id: 201, type: 'certificate', action: 'request', identifier: 'other-site.com', status: 'COMPLETED' },
    ]);
  });
});
