import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../shared/db/client.ts';
import { keys } from '../shared/db/keys.ts';
import { ensureIdFloor, nextId } from '../shared/db/repositories/counters.ts';
import { getCustomer } from '../shared/db/repositories/customers.ts';
import { getDomainOf, listDomains } from '../shared/db/repositories/domains.ts';
import { allocateProcessId, getProcess } from '../shared/db/repositories/processes.ts';
import { findRegistryForDomain } from '../shared/db/repositories/providers.ts';
import { getLatestRates, listRates, putRates } from '../shared/db/repositories/rates.ts';
import { listZones } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import { extensionCandidates } from '../shared/model/provider.ts';

describe('id sequences', () => {
  it('hands out unique, increasing process ids under 200 concurrent allocations', async () => {
    const ids = await Promise.all(Array.from({ length: 200 }, () => allocateProcessId()));
    expect(new Set(ids).size).toBe(200);
    // The demo data floors the process sequence at 1000, above its own process ids.
    expect(Math.min(...ids)).toBeGreaterThan(1000);
    const next = await allocateProcessId();
    expect(next).toBeGreaterThan(Math.max(...ids));
  });

  it('raises a sequence to a floor but never lowers it', async () => {
    await ensureIdFloor('test-seq', 50);
    expect(await nextId('test-seq')).toBe(51);
    await ensureIdFloor('test-seq', 10);
    expect(await nextId('test-seq')).toBe(52);
  });
});

describe('repositories', () => {
  it('fail loudly on a malformed row instead of passing it on', async () => {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.customer('broken'), entity: 'customer', handle: 'broken', name: 'Broken', currency: 'GBP', privacyProtect: 'yes' },
      }),
    );
    await expect(getCustomer('broken')).rejects.toThrow(/currency|privacyProtect|Invalid/);
  });

  it('refuse an item of another entity under the expected key', async () => {
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...keys.customer('imposter'), entity: 'contact' } }));
    await expect(getCustomer('imposter')).rejects.toThrow("is a 'contact', expected 'customer'");
  });

  it('find the registry of a domain by its longest known extension', async () => {
    expect(extensionCandidates('shop.example.co.uk')).toEqual(['example.co.uk', 'co.uk', 'uk']);
    expect((await findRegistryForDomain('example.co.uk'))?.provider.name).toBe('nominet');
    expect((await findRegistryForDomain('example.uk'))?.extension).toBe('uk');
    expect((await findRegistryForDomain('shop.example.nl'))?.provider.name).toBe('sidn');
    expect(await findRegistryForDomain('example.org')).toBeUndefined();
  });
});

describe('item helpers', () => {
  it("read a customer's own item, and another customer's as absent", async () => {
    expect((await getProcess(501, 'demo'))?.identifier).toBe('shop.demo-secure.com');
    expect(await getProcess(501, 'other')).toBeUndefined();
    expect((await getDomainOf('demo', 'demo-shop.nl'))?.customer).toBe('demo');
    expect(await getDomainOf('other', 'demo-shop.nl')).toBeUndefined();
  });

  it("list a customer's items through gsi1, and only that customer's", async () => {
    const domains = await listDomains('demo');
    expect(domains.map((d) => d.domainName)).toEqual(expect.arrayContaining(['demo-shop.nl', 'demo-secure.com']));
    expect(new Set(domains.map((d) => d.customer))).toEqual(new Set(['demo']));
    expect((await listZones('other')).every((z) => z.customer === 'other')).toBe(true);
  });

  it('read a whole partition in sort-key order, and its last item alone', async () => {
    await putRates({ base: 'EUR', date: '2099-01-02', rates: { USD: 1.2 } });
    await putRates({ base: 'EUR', date: '2099-01-01', rates: { USD: 1.1 } });
    const dates = (await listRates()).map((r) => r.date);
    expect(dates).toEqual([...dates].sort());
    expect(dates.slice(-2)).toEqual(['2099-01-01', '2099-01-02']);
    expect(await getLatestRates()).toEqual({ base: 'EUR', date: '2099-01-02', rates: { USD: 1.2 } });
  });
});

describe('keys', () => {
  it("keep a domain name's domain, zone and transfer in one partition, each listed through gsi1", () => {
    expect(keys.domain('a.nl', 'demo', '2027-01-01T00:00:00Z')).toEqual({
      pk: 'DOMAIN#a.nl',
      sk: 'DOMAIN',
      gsi1pk: 'DOMAINS#demo',
      gsi1sk: 'DOMAIN#a.nl',
      gsi2pk: 'DOMAINEXP#demo',
      gsi2sk: '2027-01-01T00:00:00Z#a.nl',
      gsi3pk: 'DOMAIN#a.nl#OF#demo',
    });
    expect(keys.zone('a.nl', 'demo')).toEqual({
      pk: 'DOMAIN#a.nl',
      sk: 'ZONE',
      gsi1pk: 'ZONES#demo',
      gsi1sk: 'ZONE#a.nl',
      gsi3pk: 'DOMAIN#a.nl#OF#demo',
    });
    // The zone's header, records and DNS standing share the owner's partitions by name (gsi3) and by id (gsi2).
    expect(keys.zone('a.nl', 'demo', 7)).toMatchObject({ gsi2pk: 'ZONEID#7#OF#demo', gsi2sk: 'ZONE' });
    expect(keys.ownedZoneRecord({ domainName: 'a.nl', customer: 'demo', id: 7 }, 'g1', 3)).toEqual({
      pk: 'DOMAIN#a.nl',
      sk: 'ZONE#g1#0000003',
      gsi2pk: 'ZONEID#7#OF#demo',
      gsi2sk: 'ZONE#g1#0000003',
      gsi3pk: 'DOMAIN#a.nl#OF#demo',
    });
    expect(keys.ownedZoneDns({ domainName: 'a.nl', customer: 'demo', id: 7 })).toMatchObject({
      gsi2pk: 'ZONEID#7#OF#demo',
      gsi3pk: 'DOMAIN#a.nl#OF#demo',
    });
    expect(keys.domainTransfer('a.nl', '2026-01-01T00:00:00Z')).toEqual({
      pk: 'DOMAIN#a.nl',
      sk: 'TRANSFER',
      gsi1pk: 'TRANSFERS#DUE',
      gsi1sk: 'TRANSFER#2026-01-01T00:00:00Z#a.nl',
    });
    expect([keys.domainByName('a.nl'), keys.zoneByName('a.nl'), keys.domainTransferByName('a.nl')]).toEqual([
      { pk: 'DOMAIN#a.nl', sk: 'DOMAIN' },
      { pk: 'DOMAIN#a.nl', sk: 'ZONE' },
      { pk: 'DOMAIN#a.nl', sk: 'TRANSFER' },
    ]);
    expect(keys.domainCollection('a.nl')).toEqual({ pk: 'DOMAIN#a.nl' });
  });

  it('start every key with its entity prefix', () => {
    expect(keys.apiKey('ab', 'demo', 'alice')).toEqual({
      pk: 'APIKEY#ab',
      sk: 'APIKEY',
      gsi1pk: 'APIKEYS#demo',
      gsi1sk: 'APIKEY#alice#ab',
    });
    expect(keys.contact('demo', 'demo-admin', '2024-03-01T09:06:00Z')).toEqual({
      pk: 'CONTACT#demo',
      sk: 'CONTACT#demo-admin',
      gsi1pk: 'CONTACT#demo',
      gsi1sk: 'CONTACT#2024-03-01T09:06:00Z#demo-admin',
      gsi2pk: 'CONTACT#demo',
      gsi2sk: 'CONTACT#demo-admin',
    });
    expect(keys.process(42, 'demo', 'RUNNING')).toEqual({
      pk: 'PROCESS#42',
      sk: 'PROCESS',
      gsi1pk: 'PROCESSES#demo',
      gsi1sk: 'PROCESS#000000000042',
      gsi2pk: 'PROCESSES#demo#STATUS#RUNNING',
      gsi2sk: 'PROCESS#000000000042',
    });
    expect(keys.processIdentifier('demo', 'a.nl', 42)).toEqual({ pk: 'PROCESSIDENTIFIER#demo#a.nl', sk: 'PROCESS#000000000042' });
    expect(keys.registryTransfer('a.nl', '2026-01-01T00:00:00Z')).toEqual({
      pk: 'REGISTRYDOMAIN#a.nl',
      sk: 'TRANSFER#2026-01-01T00:00:00Z',
    });
    expect(keys.zone('demo-shop.nl', 'demo').pk).toBe(keys.domain('demo-shop.nl', 'demo', '2027-01-01T00:00:00Z').pk);
    expect(keys.zone('demo-shop.nl', 'demo').sk).toBe('ZONE');
  });
});
