import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { csrFor, emailDcv, type Fixtures } from './fixtures.ts';
import type { Outcome } from './outcome.ts';

/**
 * The official TypeScript SDK (`realtimeregister/realtimeregister-ts`, not published on npm) run
 * from a checkout: its `src/index.ts` bundled with esbuild (its `@/` paths from its own tsconfig,
 * axios and qs from the checkout's node_modules), then every call a server can satisfy made
 * against the service.
 */

/** A resource of the SDK (`api.contacts`), loosely typed: the SDK is loaded at run time. */
type Resource = Record<string, (...args: unknown[]) => Promise<unknown>>;
type Api = Record<string, Resource>;
type Json = Record<string, unknown>;

/** Bundles the checkout and loads its default export, the `RealtimeRegisterAPI` class. */
async function loadSdk(checkout: string): Promise<{ Api: new (config: Json) => Api; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'rtr-ts-sdk-'));
  const outfile = join(dir, 'sdk.mjs');
  try {
    await build({
      entryPoints: [join(checkout, 'src/index.ts')],
      tsconfig: join(checkout, 'tsconfig.json'),
      absWorkingDir: checkout,
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      logLevel: 'error',
      // axios's Node build requires a few CommonJS modules of Node itself.
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not build the SDK at ${checkout} (run \`npm install --no-save axios qs\` there first): ${String(error)}`);
  }
  const mod = (await import(pathToFileURL(outfile).href)) as { default: new (config: Json) => Api };
  return { Api: mod.default, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What an SDK call threw, in one line: the answer's status and error body, or the error itself. */
async function why(error: unknown): Promise<string> {
  const e = error as { response?: { status?: number; data?: unknown }; message?: string; name?: string };
  if (e.response?.status !== undefined) {
    const raw = e.response.data;
    // A download's error (responseType blob) arrives as text, or as a Blob where axios makes one.
    const text = raw instanceof Blob ? await raw.text() : typeof raw === 'string' ? raw : undefined;
    const data = (text === undefined ? raw : parseOrUndefined(text)) as Json | undefined;
    const body = data && typeof data === 'object' ? `${data.type ?? ''}: ${String(data.message ?? '').slice(0, 160)}` : '';
    return `${e.response.status} ${body}`.trim();
  }
  return `${e.name ?? 'Error'}: ${String(e.message ?? error).slice(0, 200)}`;
}

class Check extends Error {}
/** Fails the call when what the SDK gave back is not what the service holds. */
function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Check(message);
}

export async function runTs(checkout: string, baseUrl: string, fx: Fixtures): Promise<Outcome[]> {
  const { Api, cleanup } = await loadSdk(checkout);
  const api = new Api({ apiKey: fx.apiKey, customer: fx.customer, baseURL: `${baseUrl}/v2/` });
  const outcomes: Outcome[] = [];
  const run = async (area: string, call: string, fn: () => Promise<unknown> | undefined, scope: Outcome['scope'] = 'counted') => {
    try {
      const note = await fn();
      outcomes.push({ area, call, scope, ok: true, detail: typeof note === 'string' ? note : '' });
    } catch (error) {
      outcomes.push({ area, call, scope, ok: false, detail: error instanceof Check ? `wrong result: ${error.message}` : await why(error) });
    }
  };
  const r = (name: string) => api[name] as Resource;
  try {
    // Registry metadata, prices, rates.
    await run('providers', 'provider.list', async () => {
      const page = (await r('provider').list?.()) as { entities: Json[] };
      expect(page.entities.length > 0, 'no providers');
      return `${page.entities.length} providers`;
    });
    await run('providers', 'tld.info', async () => {
      const info = (await r('tld').info?.('nl')) as Json;
      expect(info.provider !== undefined || info.metadata !== undefined, 'no metadata');
    });
    await run('pricing', 'customer.priceList', async () => {
      const list = (await r('customer').priceList?.()) as { prices?: unknown[] };
      expect((list.prices?.length ?? 0) > 0, 'no prices');
      return `${list.prices?.length} prices`;
    });
    await run('pricing', 'billing.getExchangeRates', async () => {
      const rates = (await r('billing').getExchangeRates?.('EUR')) as Json;
      expect(rates.currency === 'EUR' || rates.base === 'EUR' || rates.exchangerates !== undefined, JSON.stringify(rates).slice(0, 100));
    });
    await run('pricing', 'billing.listExchangeRates', async () => {
      const rates = (await r('billing').listExchangeRates?.()) as unknown[];
      expect(Array.isArray(rates) && rates.length > 0, 'no rates');
    });

    // Certificates.
    await run('certificates', 'ssl.get', async () => {
      const cert = (await r('ssl').get?.(fx.certificateId)) as Json;
      expect(cert.id === fx.certificateId, `id ${cert.id}`);
    });
    await run('certificates', 'ssl.list', async () => {
      const page = (await r('ssl').list?.()) as { entities: Json[] };
      expect(page.entities.length > 0, 'no certificates');
    });
    await run('certificates', 'ssl.listProducts', async () => {
      const page = (await r('ssl').listProducts?.()) as { entities: Json[] };
      expect(page.entities.length > 0, 'no products');
    });
    await run('certificates', 'ssl.getProduct', async () => {
      const product = (await r('ssl').getProduct?.(fx.product, ['product', 'brand', 'validationType'])) as Json;
      expect(product.product === fx.product, `product ${product.product}`);
    });
    await run('certificates', 'ssl.download', async () => {
      const file = (await r('ssl').download?.(fx.certificateId, { format: 'CRT' })) as unknown;
      expect(file !== undefined && file !== null, 'empty file');
    });
    const csr = csrFor(fx.certificateName);
    await run('certificates', 'ssl.renew (quote)', async () => {
      const quote = (await r('ssl').renew?.(fx.certificateId, { period: 12, csr, dcv: emailDcv(fx) }, true)) as Json;
      expect(quote.currency !== undefined || quote.billables !== undefined, JSON.stringify(quote).slice(0, 100));
    });
    let renewal: number | undefined;
    await run('certificates', 'ssl.renew', async () => {
      const answer = (await r('ssl').renew?.(fx.certificateId, { period: 12, csr, dcv: emailDcv(fx) })) as Json;
      renewal = (answer.processId ?? answer.id) as number | undefined;
      expect(typeof renewal === 'number' && !Number.isNaN(renewal), `no process id in ${JSON.stringify(answer).slice(0, 120)}`);
      return `process ${renewal}`;
    });

    // Transfer and processes.
    let transfer: number | undefined;
    await run('transfer', 'domains.transfer', async () => {
      const answer = (await r('domains').transfer?.({
        domainName: fx.transferDomain,
        authcode: fx.transferAuthcode,
        registrant: fx.registrant,
        period: 12,
      })) as Json;
      transfer = answer.id as number;
      expect(typeof transfer === 'number' && !Number.isNaN(transfer), `no process id in ${JSON.stringify(answer).slice(0, 120)}`);
      return `process ${transfer}`;
    });
    await run('transfer', 'domains.getTransferInfo', async () => {
      const info = (await r('domains').getTransferInfo?.(fx.transferDomain, transfer)) as Json;
      expect(info.domainName === fx.transferDomain, `domain ${info.domainName}`);
      return `status ${info.status}`;
    });
    await run('processes', 'process.get', async () => {
      const p = (await r('process').get?.(transfer)) as Json;
      expect(p.id === transfer, `id ${p.id}`);
    });
    await run('processes', 'process.info', async () => {
      const info = (await r('process').info?.(fx.certificateProcessId)) as Json;
      expect(info !== undefined, 'no info');
    });
    await run('processes', 'process.list', async () => {
      const page = (await r('process').list?.({ limit: 5, order: '-createdDate' })) as { entities: Json[]; pagination: { total?: number } };
      expect(page.entities.length > 0, 'no processes');
    });
    await run('processes', 'process.resend', async () => {
      await r('process').resend?.(transfer);
    });
    await run('processes', 'process.cancel', async () => {
      await r('process').cancel?.(transfer);
    });
    // The renewal may have completed already (the sandbox validates a managed zone's DCV at once).
    if (renewal !== undefined)
      await r('process')
        .cancel?.(renewal)
        ?.catch(() => undefined);

    // Notifications.
    let notification: number | undefined;
    await run('notifications', 'notification.list', async () => {
      const page = (await r('notification').list?.({ limit: 10 })) as { entities: Json[] };
      expect(page.entities.length > 0, 'no notifications');
      notification = page.entities[0]?.id as number;
    });
    await run('notifications', 'notification.get', async () => {
      const n = (await r('notification').get?.(notification)) as Json;
      expect(n.id === notification, `id ${n.id}`);
    });
    await run('notifications', 'notification.ack', async () => {
      await r('notification').ack?.(notification);
    });

    // Contacts.
    const handle = `${fx.prefix}-c`;
    const contact = {
      handle,
      brand: 'default',
      name: 'Sam de Groot',
      organization: 'SDK Run B.V.',
      addressLine: ['Damrak 1'],
      postalCode: '1012 LG',
      city: 'Amsterdam',
      country: 'NL',
      email: 'sam@sdk-run.example',
      voice: '+31.201234567',
    };
    await run('contacts', 'contacts.create', async () => {
      await r('contacts').create?.(contact);
    });
    await run('contacts', 'contacts.get', async () => {
      const c = (await r('contacts').get?.(handle)) as Json;
      expect(c.handle === handle && c.email === contact.email, `handle ${c.handle}`);
    });
    await run('contacts', 'contacts.list', async () => {
      const page = (await r('contacts').list?.({ limit: 100, filters: [{ field: 'handle', value: handle }] })) as { entities: Json[] };
      expect(
        page.entities.some((c) => c.handle === handle),
        'created contact not listed',
      );
    });
    await run('contacts', 'contacts.update', async () => {
      await r('contacts').update?.({ handle, city: 'Haarlem' });
      const c = (await r('contacts').get?.(handle)) as Json;
      expect(c.city === 'Haarlem', `city ${c.city}`);
    });
    await run('contacts', 'contacts.validate', async () => {
      await r('contacts').validate?.(handle, ['General']);
    });
    await run('contacts', 'contacts.addProperties', async () => {
      await r('contacts').addProperties?.(handle, 'sidn', { properties: { legalForm: 'BV' } });
    });
    await run('contacts', 'contacts.updateProperties', async () => {
      await r('contacts').updateProperties?.(handle, 'sidn', { properties: { legalForm: 'EENMANSZAAK' } });
    });
    await run('contacts', 'contacts.split', async () => {
      await r('contacts').split?.(handle, { newHandle: `${handle}2`, registries: ['sidn'] });
    });
    await run('contacts', 'contacts.delete', async () => {
      await r('contacts').delete?.(handle);
      await r('contacts').delete?.(`${handle}2`);
    });

    // Domains.
    await run('domains', 'domains.get', async () => {
      const d = (await r('domains').get?.(fx.domain)) as Json;
      expect(d.domainName === fx.domain, `domain ${d.domainName}`);
    });
    await run('domains', 'domains.list', async () => {
      const page = (await r('domains').list?.({ limit: 10 })) as { entities: Json[] };
      expect(page.entities.length > 0, 'no domains');
    });
    await run('domains', 'domains.check', async () => {
      const answer = (await r('domains').check?.(`${fx.prefix}.com`)) as Json;
      expect(answer.available === true, JSON.stringify(answer));
    });
    await run('domains', 'domains.update', async () => {
      await r('domains').update?.({ domainName: fx.domain, autoRenew: false });
      await r('domains').update?.({ domainName: fx.domain, autoRenew: true });
    });
    await run('domains', 'domains.zoneInfo', async () => {
      const zone = (await r('domains').zoneInfo?.(fx.domain)) as Json;
      expect(zone.id !== undefined, 'no zone id');
    });
    await run('domains', 'domains.zoneUpdate', async () => {
      const zone = (await r('domains').zoneInfo?.(fx.unlinkedDomain)) as Json;
      await r('domains').zoneUpdate?.(fx.unlinkedDomain, {
        hostMaster: zone.hostMaster,
        refresh: zone.refresh,
        retry: zone.retry,
        expire: zone.expire,
        ttl: zone.ttl,
        records: zone.records,
      });
    });
    // A registration as a reseller's client sends it: the registrant, one contact per role (the
    // sandbox's .com takes ADMIN and TECH; BILLING, which it has none of, is left out), a period,
    // privacy and auto-renewal; then its life cycle.
    const registered = `${fx.prefix}-r.com`;
    const domainOf = async () => (await r('domains').get?.(registered)) as Json;
    await run('domains', 'domains.register', async () => {
      const answer = (await r('domains').register?.({
        domainName: registered,
        registrant: fx.registrant,
        period: 12,
        privacyProtect: false,
        autoRenew: true,
        contacts: ['ADMIN', 'BILLING', 'TECH'].map((role) => ({ role, handle: fx.registrant })),
      })) as { id?: number; data?: Json };
      expect(typeof answer.id === 'number' && !Number.isNaN(answer.id), 'no process id');
      expect(answer.data?.domainName === registered, `answer ${JSON.stringify(answer.data).slice(0, 120)}`);
      const domain = await domainOf();
      expect(domain.domainName === registered, 'registered domain not found');
      return `process ${answer.id}, ${String(domain.status)}`;
    });
    let expiry: unknown;
    await run('domains', 'domains.renew', async () => {
      const before = (await domainOf()).expiryDate;
      const answer = (await r('domains').renew?.({ domainName: registered, period: 12 })) as { data?: Json };
      expiry = (await domainOf()).expiryDate;
      expect(expiry !== before && answer.data?.expiryDate !== undefined, `expiry ${String(before)} -> ${String(expiry)}`);
      return `expiry ${String(expiry)}`;
    });
    await run('domains', 'domains.delete', async () => {
      await r('domains').delete?.(registered);
      const status = (await domainOf()).status as unknown[];
      expect(status.includes('REDEMPTION_PERIOD'), `status ${JSON.stringify(status)}`);
    });
    await run('domains', 'domains.restore', async () => {
      const answer = (await r('domains').restore?.({ domainName: registered, reason: 'Deleted by mistake' })) as { data?: Json };
      const status = (await domainOf()).status as unknown[];
      expect(!status.includes('REDEMPTION_PERIOD') && answer.data?.expiryDate !== undefined, `status ${JSON.stringify(status)}`);
    });

    // The same calls with the options a client passes: fields, filters with matchers, order, total,
    // search, quotes, currencies.
    const page = async (resource: string, params: Json) =>
      (await r(resource).list?.(params)) as { entities: Json[]; pagination: { total?: number } };
    await run('contacts', 'contacts.get (fields)', async () => {
      const c = (await r('contacts').get?.(fx.registrant, ['handle', 'email', 'country'])) as Json;
      expect(c.email !== undefined && c.city === undefined, `fields not applied: ${Object.keys(c).filter((k) => c[k] !== undefined)}`);
    });
    await run('contacts', 'contacts.list (q, total=false)', async () => {
      const p = await page('contacts', { q: 'demo', total: false, limit: 2 });
      expect(p.entities.length > 0 && p.pagination.total === undefined, `total ${p.pagination.total}`);
    });
    await run('contacts', 'contacts.list (matchers, order)', async () => {
      const p = await page('contacts', {
        order: ['-handle'],
        filters: [
          { field: 'country', matcher: 'in', value: ['NL', 'BE'] },
          { field: 'handle', matcher: 'like', value: 'demo-*' },
        ],
      });
      expect(p.entities.length > 0 && p.entities.every((c) => c.country === 'NL'), `${p.entities.length} contacts`);
    });
    await run('contacts', 'contacts.list (not_in, not_like)', async () => {
      const p = await page('contacts', {
        filters: [
          { field: 'handle', matcher: 'not_in', value: ['demo-admin', 'demo-tech'] },
          { field: 'handle', matcher: 'not_like', value: 'other-*' },
        ],
      });
      const handles = p.entities.map((c) => c.handle);
      expect(handles.length > 0 && !handles.includes('demo-admin') && !handles.includes('demo-tech'), `handles ${handles}`);
    });
    await run('domains', 'domains.get (fields)', async () => {
      const d = (await r('domains').get?.(fx.domain, ['domainName', 'expiryDate', 'status'])) as Json;
      expect(
        !Number.isNaN(new Date(d.expiryDate as string).getTime()) && d.registrant === undefined,
        `fields not applied: ${Object.keys(d)}`,
      );
    });
    await run('domains', 'domains.list (expiryDate:lt, order)', async () => {
      const p = await page('domains', {
        order: ['expiryDate'],
        filters: [{ field: 'expiryDate', matcher: 'lt', value: '2099-01-01T00:00:00Z' }],
      });
      expect(p.entities.length > 0, 'no domains');
    });
    await run('domains', 'domains.list (status, fields)', async () => {
      const p = await page('domains', {
        fields: ['domainName', 'status'],
        filters: [{ field: 'status', value: 'CLIENT_TRANSFER_PROHIBITED' }],
      });
      expect(p.entities.length > 0, 'no locked domain');
    });
    await run('domains', 'domains.list (status not_in)', async () => {
      const p = await page('domains', { filters: [{ field: 'status', matcher: 'not_in', value: ['CLIENT_TRANSFER_PROHIBITED'] }] });
      expect(
        p.entities.length > 0 && p.entities.every((d) => !(d.status as string[]).includes('CLIENT_TRANSFER_PROHIBITED')),
        'locked domain listed',
      );
    });
    await run('domains', 'domains.check (premium, renewPrice)', async () => {
      const answer = (await r('domains').check?.('register-premium.com', 'nl', true)) as Json;
      expect(answer.premium === true && answer.renewPrice !== undefined, JSON.stringify(answer));
    });
    await run('domains', 'domains.update (quote)', async () => {
      const quote = (await r('domains').update?.({ domainName: fx.domain, privacyProtect: true }, true)) as Json;
      expect(quote !== undefined, 'no quote');
    });
    await run('domains', 'domains.update (zone as read)', async () => {
      const d = (await r('domains').get?.(fx.domain)) as Json;
      await r('domains').update?.({ domainName: fx.domain, zone: d.zone });
      const after = (await r('domains').get?.(fx.domain)) as Json;
      expect(JSON.stringify(after.zone) === JSON.stringify(d.zone), 'zone changed');
    });
    await run('domains', 'domains.update (contacts, ns as read)', async () => {
      const d = (await r('domains').get?.(fx.domain)) as Json;
      await r('domains').update?.({ domainName: fx.domain, contacts: d.contacts, ns: d.ns });
      const after = (await r('domains').get?.(fx.domain)) as Json;
      expect(JSON.stringify(after.contacts) === JSON.stringify(d.contacts) && JSON.stringify(after.ns) === JSON.stringify(d.ns), 'changed');
    });
    await run('transfer', 'domains.transfer (quote)', async () => {
      const quote = (await r('domains').transfer?.(
        { domainName: fx.transferDomain, authcode: fx.transferAuthcode, registrant: fx.registrant, period: 12 },
        true,
      )) as Json;
      expect(quote.currency !== undefined && quote.total !== undefined, JSON.stringify(quote).slice(0, 120));
    });
    await run('pricing', 'customer.priceList (USD)', async () => {
      const list = (await r('customer').priceList?.('USD')) as { prices?: Json[] };
      expect(
        list.prices?.every((p) => p.currency === 'USD'),
        'not in USD',
      );
    });
    await run('processes', 'process.get (fields)', async () => {
      const p = (await r('process').get?.(fx.certificateProcessId, ['id', 'status'])) as Json;
      expect(p.status !== undefined, 'no status');
    });
    await run('processes', 'process.list (status:in, order, total)', async () => {
      const p = await page('process', {
        total: true,
        order: ['-id'],
        filters: [{ field: 'status', matcher: 'in', value: ['COMPLETED', 'RUNNING'] }],
      });
      expect(p.entities.length > 0 && typeof p.pagination.total === 'number', `total ${p.pagination.total}`);
    });
    await run('notifications', 'notification.list (filters)', async () => {
      const p = await page('notification', {
        limit: 5,
        order: ['-fireDate'],
        filters: [{ field: 'eventType', value: 'TransferDomainEvent' }],
      });
      expect(
        p.entities.every((n) => n.eventType === 'TransferDomainEvent'),
        'filter not applied',
      );
    });
    await run('zones', 'dnsZone.get (fields)', async () => {
      const z = (await r('dnsZone').get?.(fx.zoneId, ['id', 'name', 'records'])) as Json;
      expect(Array.isArray(z.records), 'no records');
    });
    await run('zones', 'dnsZone.list (filters)', async () => {
      const p = await page('dnsZone', {
        filters: [
          { field: 'service', value: 'BASIC' },
          { field: 'name', matcher: 'like', value: 'demo*' },
        ],
      });
      expect(p.entities.length > 0, 'no zones');
    });
    await run('providers', 'provider.list (q)', async () => {
      const p = await page('provider', { q: 'sidn' });
      expect(p.entities.length === 1, `${p.entities.length} providers`);
    });
    await run('certificates', 'ssl.list (filters, order, fields)', async () => {
      const p = (await r('ssl').list?.({
        limit: 5,
        order: ['id'],
        fields: ['id', 'domainName', 'status'],
        filters: [
          { field: 'status', value: 'ACTIVE' },
          { field: 'domainName', matcher: 'like', value: '*demo*' },
          { field: 'product', matcher: 'not_in', value: 'ssl_sectigo_ev' },
        ],
      })) as { entities: Json[] };
      expect(p.entities.length > 0, 'no certificates');
    });
    await run('certificates', 'ssl.listProducts (order, limit)', async () => {
      const p = (await r('ssl').listProducts?.({ limit: 2, order: ['-product'] })) as { entities: Json[] };
      expect(p.entities.length === 2, `${p.entities.length} products`);
    });

    // DNS zones.
    let zoneId: number | undefined;
    await run('zones', 'dnsZone.list', async () => {
      const page = (await r('dnsZone').list?.({ limit: 10 })) as { entities: Json[] };
      expect(page.entities.length > 0, 'no zones');
    });
    await run('zones', 'dnsZone.get', async () => {
      const zone = (await r('dnsZone').get?.(fx.zoneId)) as Json;
      expect(zone.id === fx.zoneId, `id ${zone.id}`);
    });
    const zoneName = `${fx.prefix}.example`;
    await run('zones', 'dnsZone.create', async () => {
      const answer = (await r('dnsZone').create?.({
        name: zoneName,
        service: 'BASIC',
        records: [{ name: zoneName, type: 'A', content: '192.0.2.1', ttl: 3600 }],
      })) as { data?: Json };
      zoneId = answer.data?.id as number | undefined;
      if (zoneId === undefined) {
        const page = (await r('dnsZone').list?.({ filters: [{ field: 'name', value: zoneName }] })) as { entities: Json[] };
        zoneId = page.entities[0]?.id as number | undefined;
      }
      expect(zoneId !== undefined, 'created zone not found');
      return `zone ${zoneId}`;
    });
    await run('zones', 'dnsZone.update', async () => {
      await r('dnsZone').update?.({
        id: zoneId,
        records: [
          { name: zoneName, type: 'A', content: '192.0.2.2', ttl: 3600 },
          { name: `www.${zoneName}`, type: 'CNAME', content: zoneName, ttl: 3600 },
        ],
      });
      const zone = (await r('dnsZone').get?.(zoneId)) as { records?: Json[] };
      expect(
        zone.records?.some((rec) => rec.content === '192.0.2.2'),
        'records not updated',
      );
    });
    await run('zones', 'dnsZone.stats', async () => {
      const stats = (await r('dnsZone').stats?.(zoneId)) as { queries?: Json[] };
      expect(Array.isArray(stats.queries), `answer ${JSON.stringify(stats).slice(0, 120)}`);
      return `${stats.queries.length} days`;
    });
    // Not counted: a retrieval copies a zone by AXFR from its master, which must be a public
    // address; no master of a local run is one, so the service refuses it (docs/zones-api.md).
    await run('zones', 'dnsZone.retrieve', () => r('dnsZone').retrieve?.(fx.hiddenMasterZoneId), 'uncounted');
    await run('zones', 'dnsZone.delete', async () => {
      await r('dnsZone').delete?.(zoneId);
    });
  } finally {
    cleanup();
  }
  return outcomes;
}
