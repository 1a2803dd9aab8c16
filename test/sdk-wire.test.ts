import { describe, expect, it } from 'vitest';
import { call } from './support/api.ts';
import { demoBody, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * What the official SDKs send, found by running them against `npm start` (docs/sdk-runs.md), through
 * the real handlers: each request here is the one the SDK call builds.
 */

const entities = (res: { body: { entities: Record<string, unknown>[] } }) => res.body.entities;

describe("booleans in a query as PHP's http_build_query writes them (1 and 0)", () => {
  it("takes renewPrice=1, the PHP SDK's domains->check(name, null, true), as renewPrice=true", async () => {
    const php = await call('GET', '/v2/domains/register-premium.com/check?renewPrice=1');
    expect(php.status).toBe(200);
    expect(php.body).toEqual((await call('GET', '/v2/domains/register-premium.com/check?renewPrice=true')).body);
    expect(php.body.renewPrice).toBe(120000);
    const off = await call('GET', '/v2/domains/register-premium.com/check?renewPrice=0');
    expect(off.status).toBe(200);
    expect(off.body.renewPrice).toBeUndefined();
  });

  it('takes total=0 and export=1 in a listing (a PHP list() or export() given PHP booleans in its parameters)', async () => {
    const noTotal = await call('GET', '/v2/customers/demo/contacts?total=0&limit=1');
    expect(noTotal.status).toBe(200);
    expect(noTotal.body.pagination).toEqual({ limit: 1, offset: 0 });
    const exported = await call('GET', '/v2/customers/demo/contacts?export=1');
    expect(exported.status).toBe(200);
    expect(exported.body).toEqual((await call('GET', '/v2/customers/demo/contacts?export=true')).body);
    expect((await call('GET', '/v2/providers?total=0')).body.pagination).toEqual({ limit: 10, offset: 0 });
    expect((await call('GET', '/v2/ssl/products?total=1')).body.pagination.total).toBeGreaterThan(0);
  });

  it('still refuses any other spelling, naming the parameter', async () => {
    for (const url of [
      '/v2/domains/register-premium.com/check?renewPrice=yes',
      '/v2/customers/demo/contacts?total=2',
      '/v2/providers?total=on',
    ]) {
      const res = await call('GET', url);
      expect(res.status, url).toBe(400);
      expect(res.body.type).toBe('ConstraintViolationException');
      expect(res.body.violations[0].message).toBe('must be true or false');
    }
  });
});

describe("the TypeScript SDK's not_in and not_like matchers (ListFilter matcher), wherever in and like are taken", () => {
  it('lists the contacts whose handle is none of the values, or does not match the pattern', async () => {
    // contacts.list({ filters: [{ field: 'handle', matcher: 'not_in', value: [...] }] }) joins the values with commas.
    const all = entities(await call('GET', '/v2/customers/demo/contacts?export=true')).map((c) => c.handle);
    const notIn = await call('GET', '/v2/customers/demo/contacts?handle:not_in=demo-admin,demo-tech&export=true');
    expect(notIn.status).toBe(200);
    expect(entities(notIn).map((c) => c.handle)).toEqual(all.filter((h) => h !== 'demo-admin' && h !== 'demo-tech'));
    const notLike = await call('GET', '/v2/customers/demo/contacts?handle:not_like=DEMO-A*&export=true');
    expect(entities(notLike).map((c) => c.handle)).toEqual(all.filter((h) => !String(h).startsWith('demo-a')));
  });

  it('counts a process listing with not_in from the kept counts as the pages list it', async () => {
    const counted = await call('GET', '/v2/processes?status:not_in=COMPLETED,CANCELLED&limit=0');
    expect(counted.status).toBe(200);
    const listed = entities(await call('GET', '/v2/processes?status:not_in=COMPLETED,CANCELLED&limit=100&fields=id,status'));
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((p) => p.status !== 'COMPLETED' && p.status !== 'CANCELLED')).toBe(true);
    expect(counted.body.pagination.total).toBe(listed.length);
    const notLike = entities(await call('GET', '/v2/processes?identifier:not_like=*demo-shop.nl&limit=100&fields=id,identifier'));
    expect(notLike.every((p) => !String(p.identifier).endsWith('demo-shop.nl'))).toBe(true);
  });

  it('lists domains with none of the statuses, and zones whose name does not match', async () => {
    const unlocked = entities(await call('GET', '/v2/domains?status:not_in=CLIENT_TRANSFER_PROHIBITED&limit=100'));
    expect(unlocked.map((d) => d.domainName)).toContain('demo-shop.nl');
    expect(unlocked.map((d) => d.domainName)).not.toContain('demo-secure.com');
    const zones = entities(await call('GET', '/v2/dns/zones?name:not_like=*.nl&limit=100'));
    expect(zones.map((z) => z.name)).toContain('demo-secure.com');
    expect(zones.every((z) => !String(z.name).endsWith('.nl'))).toBe(true);
  });

  it('refuses not_in and not_like where a field takes neither in nor like', async () => {
    for (const url of [
      '/v2/domains?expiryDate:not_in=2027-01-01',
      '/v2/domains?status:not_like=OK',
      '/v2/processes?createdDate:not_like=2026*',
    ]) {
      const res = await call('GET', url);
      expect(res.status, url).toBe(400);
      expect(res.body.type).toBe('ConstraintViolationException');
    }
  });
});

describe("a domain's gateway flag, which the TS SDK's Domain requires", () => {
  it('answers gateway: false on a domain, each listed domain and when fields names it', async () => {
    const one = await call('GET', '/v2/domains/demo-shop.nl');
    expect(one.status).toBe(200);
    expect(one.body.gateway).toBe(false);
    const page = entities(await call('GET', '/v2/domains?limit=100'));
    expect(page.length).toBeGreaterThan(0);
    expect(page.every((d) => d.gateway === false)).toBe(true);
    expect((await call('GET', '/v2/domains/demo-shop.nl?fields=domainName,gateway')).body).toEqual({
      domainName: 'demo-shop.nl',
      gateway: false,
    });
  });
});

describe("a domain update that sends back the zone it read (the SDKs' update with zone)", () => {
  const update = (name: string, body: Record<string, unknown>, quote = false) =>
    call('POST', `/v2/domains/${name}/update${quote ? '?quote=true' : ''}`, { body });

  it("takes the PHP SDK's Zone as read (unset fields null) and the TS SDK's, and changes nothing", async () => {
    const before = (await call('GET', '/v2/domains/demo-shop.nl')).body;
    // domains->update('demo-shop.nl', zone: $domain->zone): Zone::toArray with link and master null.
    const php = {
      id: before.zone.id,
      service: before.zone.service,
      template: before.zone.template,
      dnssec: before.zone.dnssec,
      link: null,
      master: null,
    };
    const res = await update('demo-shop.nl', { zone: php });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = (await call('GET', '/v2/domains/demo-shop.nl')).body;
    expect(after.zone).toEqual(before.zone);
    expect((await call('GET', `/v2/dns/zones/${before.zone.id}`)).body.records).toBeDefined();
    // domains.update({ domainName, zone: domain.zone }) sends it as it came.
    expect((await update('demo-shop.nl', { zone: before.zone }, true)).status).toBe(200);
  });

  it('refuses a zone value that differs from the managed zone, naming it', async () => {
    const before = (await call('GET', '/v2/domains/demo-shop.nl')).body;
    const res = await update('demo-shop.nl', { zone: { ...before.zone, service: 'PREMIUM' } }, true);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ValidationError');
    expect(res.body.violations.map((v: { field: string }) => v.field)).toEqual(['zone.service']);
  });

  it('links a zone to a domain that has no managed zone (a quote writes nothing)', async () => {
    const name = `no-zone-${process.pid}.com`;
    await sandboxDomain(name, { transfer: { stages: [], outcome: 'completed' } });
    expect((await transfer(name, { ...demoBody, authcode: 'TEST-CODE' })).status).toBe(200);
    expect((await update(name, { zone: { service: 'BASIC' } }, true)).status).toBe(200);
    expect((await call('GET', `/v2/domains/${name}`)).body.zone).toBeUndefined();
    const res = await update(name, { zone: { service: 'BASIC' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.zone).toMatchObject({ service: 'BASIC', dnssec: false });
    expect((await call('GET', `/v2/domains/${name}`)).body.zone).toEqual(res.body.zone);
  });
});
