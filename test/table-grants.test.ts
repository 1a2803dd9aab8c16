import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayTokenAuthorizerEvent, Context, DynamoDBStreamEvent, ScheduledEvent, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as authorizer } from '../functions/authorizer/handler.ts';
import { handler as dcvCheck } from '../functions/dcv-check/handler.ts';
import { handler as domainExpiry } from '../functions/domain-expiry/handler.ts';
import { handler as exchangeRates } from '../functions/exchange-rates/handler.ts';
import { handler as notificationCounts } from '../functions/notification-counts/handler.ts';
import { handler as repairCounts } from '../functions/repair-counts/handler.ts';
import { handler as webhookDeliver } from '../functions/webhook-deliver/handler.ts';
import { handler as webhookRetry } from '../functions/webhook-retry/handler.ts';
import { startPowerDns } from '../infra/local/powerdns.ts';
import { forgetCatalogue } from '../shared/certificates/catalogue.ts';
import { db } from '../shared/db/client.ts';
import { queryPartition } from '../shared/db/items.ts';
import { keyKinds, keys } from '../shared/db/keys.ts';
import { getNotification, notificationItem } from '../shared/db/repositories/notifications.ts';
import { raisePriceListVersion } from '../shared/db/repositories/price-snapshots.ts';
import { enqueueDelivery, putDeadLetter } from '../shared/db/repositories/webhook-deliveries.ts';
import { deleteZoneRecord, putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZone, getZoneHead, type ZoneHead } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import type { NotificationRecord } from '../shared/model/notification.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';
import { forgetCachedRates } from '../shared/pricing/rates.ts';
import { authorizerDir, authorizerTable, jobs, routes, streamConsumers, type TableUse } from '../shared/routes.ts';
import { call, demoKey, limitedKey, otherKey } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { registryMetadataFlow } from './support/registry-metadata-flow.ts';
import { sampleOf, sendSample } from './support/route-samples.ts';
import { beforeFirstCall, recordTableCalls } from './support/sdk-calls.ts';
import { emptyUse, type ObservedUse, observe } from './support/table-use.ts';
import { demoBody, plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * Least privilege from the route table: every route and job declares what it does to the table
 * (its DynamoDB actions, whether it queries the index, and, where it touches a few kinds of item
 * only, which), the stack grants exactly that (test/infra-hardening.test.ts), and here each
 * function's flows run against DynamoDB Local with every call recorded at the SDK client: what a
 * function does must be what it declares, no less (the grant would refuse it on AWS) and no more
 * (a declared action nobody takes is a grant too many).
 */

const used = new Map<string, ObservedUse>();

/** Runs `fn` and adds what it did to the table to the function's observed use. */
async function as<T>(fn: string, run: () => Promise<T>): Promise<T> {
  const { result, details } = await recordTableCalls(run);
  const use = used.get(fn) ?? emptyUse();
  for (const d of details) observe(use, d);
  used.set(fn, use);
  return result;
}

const csr = makeCsr({ subject: 'CN=www.demo-shop.nl, O=Demo Hosting B.V., C=NL', san: ['www.demo-shop.nl', 'demo-shop.nl'] });
const scheduled = { 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} } as unknown as ScheduledEvent;
const jobContext = { awsRequestId: 'grants', functionName: 'job' } as Context;
const sample = readFileSync(new URL('./fixtures/ecb/eurofxref-daily-2026-11-20.xml', import.meta.url), 'utf8');
let ecb: Server;

beforeAll(async () => {
  ecb = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/xml' }).end(sample));
  await new Promise<void>((resolve) => ecb.listen(0, '127.0.0.1', resolve));
  process.env.ECB_RATES_URL = `http://127.0.0.1:${(ecb.address() as AddressInfo).port}/eurofxref-daily.xml`;
  // Warm the keys, so the routes' recordings hold only their own calls.
  for (const key of [demoKey, limitedKey, otherKey]) await call('GET', '/v2/providers/REGISTRY/sidn/info', { key });
  forgetCatalogue();
  forgetCachedRates();
});

afterAll(async () => {
  delete process.env.ECB_RATES_URL;
  await new Promise((resolve) => ecb.close(resolve));
});

const tokenEvent = (token: string) =>
  ({
    type: 'TOKEN',
    authorizationToken: token,
    methodArn: 'arn:aws:execute-api:eu-west-1:1:api/sandbox/GET/v2/x',
  }) as APIGatewayTokenAuthorizerEvent;

describe("each function's table use is what it declares", () => {
  it('runs the flows of every function', async () => {
    await as(authorizerDir, () => authorizer(tokenEvent('ApiKey demo-key')));
    await as(authorizerDir, () => authorizer(tokenEvent('ApiKey never-issued-key-0123456789')).catch(() => undefined));

    await as('openapi', () => call('GET', '/v2/openapi.json', { key: null }));
    await as('provider-info', () => call('GET', '/v2/providers/REGISTRY/nominet/info'));
    await as('pricelist', () => call('GET', '/v2/customers/demo/pricelist?currency=USD'));
    // After a write of the list its snapshot is stale: the GET reads the list whole and stores the new one.
    await raisePriceListVersion('demo');
    await as('pricelist', () => call('GET', '/v2/customers/demo/pricelist'));
    await as('zone', () => call('GET', '/v2/domains/demo-shop.nl/zone'));
    await as('process-info', () => call('GET', '/v2/processes/501/info'));
    await as('process-info', () => call('GET', '/v2/processes/502/info'));

    await as('transfer', () => transfer('transfer-now.nl', { ...demoBody, authcode: 'NL-TRANSFER-2026' }, { quote: true }));
    await as('transfer', () =>
      transfer('transfer-now.nl', {
        ...demoBody,
        authcode: 'NL-TRANSFER-2026',
        zone: { service: 'BASIC', template: 'demo-template', link: false },
      }),
    );
    await as('transfer', () =>
      transfer('transfer-wait.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' }, { headers: { 'Idempotency-Key': 'grants-1' } }),
    );
    await as('transfer', () =>
      transfer('transfer-locked.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' }, { headers: { 'Idempotency-Key': 'grants-2' } }),
    );
    await as('transfer', () => transfer('transfer-rejected.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' }));
    await as('transfer', () =>
      transfer('transfer-tag.co.uk', { ...demoBody, zone: { service: 'BASIC', template: 'demo-template', link: false } }),
    );

    // Registration: a quote, at once with a zone from a template, keyed, pending (the poller completes it below), refused.
    const registration = {
      ...demoBody,
      contacts: [
        { role: 'ADMIN', handle: 'demo-admin' },
        { role: 'TECH', handle: 'demo-tech' },
      ],
    };
    await as('domain-register', () => call('POST', '/v2/domains/grants-new.com?quote=true', { body: registration }));
    await as('domain-register', () =>
      call('POST', '/v2/domains/grants-new.com', {
        body: { ...registration, zone: { service: 'BASIC', template: 'demo-template', link: false } },
        headers: { 'Idempotency-Key': 'grants-register-1' },
      }),
    );
    await as('domain-register', () =>
      call('POST', '/v2/domains/register-pending.nl', { body: { ...registration, zone: { service: 'BASIC' } } }),
    );
    await as('domain-register', () =>
      call('POST', '/v2/domains/register-reserved.com', { body: registration, headers: { 'Idempotency-Key': 'grants-register-2' } }),
    );

    await as('renew', () => renew(1001, { period: 12, csr }, { quote: true }));
    await as('renew', () => renew(1001, { period: 12, csr }, { headers: { 'Idempotency-Key': 'grants-3' } }));
    await as('renew', () => renew(1001, { period: 12, csr }, { headers: { 'Idempotency-Key': 'grants-4' } }));
    const auto = await testCertificate({ product: 'ssl_sectigo_dv' });
    await as('renew', () => renew(auto.id, { period: 12, csr, authKey: true }));

    // The follow-up operations: reads of processes, transfers, TLDs and providers; a cancel and a
    // resend of a transfer and of a certificate request, with and without Idempotency-Key.
    await as('process', () => call('GET', '/v2/processes/501'));
    await as('processes', () => call('GET', '/v2/processes?status=RUNNING&total=true'));
    await as('processes', () => call('GET', '/v2/processes?identifier=shop.demo-secure.com'));
    await as('processes', () => call('GET', '/v2/processes?detailStatus=SSL_REQUIRES_ATTENTION&order=-createdDate'));
    await as('tld-info', () => call('GET', '/v2/tlds/co.uk/info'));
    await as('provider', () => call('GET', '/v2/providers/sidn'));
    await as('provider', () => call('GET', '/v2/providers/REGISTRY/nominet'));
    const waiting = `grants-${process.pid}.com`;
    await sandboxDomain(waiting, { transfer: { stages: [{ status: 'pendingfoa', seconds: 86_400 }], outcome: 'completed' } });
    const started = await transfer(waiting, { ...demoBody, authcode: 'TEST-CODE' });
    const transferId = started.headers['x-process-id'];
    await as('transfer-info', () => call('GET', `/v2/domains/${waiting}/transfer/${transferId}`));
    await as('process-resend', () => call('POST', `/v2/processes/${transferId}/resend`, { headers: { 'Idempotency-Key': 'grants-5' } }));
    await as('process-cancel', () => call('DELETE', `/v2/processes/${transferId}`, { headers: { 'Idempotency-Key': 'grants-6' } }));
    // A replay reads the key's answer; a refusal (the transfer is cancelled now) releases its claim.
    await as('process-cancel', () => call('DELETE', `/v2/processes/${transferId}`, { headers: { 'Idempotency-Key': 'grants-6' } }));
    await as('process-resend', () => call('POST', `/v2/processes/${transferId}/resend`, { headers: { 'Idempotency-Key': 'grants-7' } }));
    await as('process-resend', () => call('POST', `/v2/processes/${transferId}/resend`, { headers: { 'Idempotency-Key': 'grants-5' } }));
    // The zone API: listings, reads, a keyed create (and a refused one), updates by id and by name,
    // one slowed at the table so its Idempotency-Key's lease is renewed meanwhile, deletes.
    await as('dns-zones', () => call('GET', '/v2/dns/zones?limit=5&offset=1'));
    await as('dns-zones', () => call('GET', '/v2/dns/zones?service=BASIC&name:like=demo*'));
    await as('dns-zone', () => call('GET', '/v2/dns/zones/101'));
    const zoneBody = {
      name: 'grants-zone.nl',
      template: 'demo-template',
      records: [{ name: 'x.grants-zone.nl', type: 'A', content: '192.0.2.1', ttl: 3600 }],
    };
    const createdZone = await as('dns-zone-create', () =>
      call('POST', '/v2/dns/zones', { body: zoneBody, headers: { 'Idempotency-Key': 'grants-z1' } }),
    );
    await as('dns-zone-create', () => call('POST', '/v2/dns/zones', { body: zoneBody, headers: { 'Idempotency-Key': 'grants-z2' } }));
    const zoneId = createdZone.body.id as number;
    const slowTable = beforeFirstCall(
      (command) => command.startsWith('TransactWrite'),
      () => new Promise((resolve) => setTimeout(resolve, 2500)),
    );
    await as('dns-zone-update', () =>
      call('POST', `/v2/dns/zones/${zoneId}/update`, { body: { link: false }, headers: { 'Idempotency-Key': 'grants-z3' } }),
    );
    slowTable();
    await as('dns-zone-update', () =>
      call('POST', `/v2/dns/zones/${zoneId}/update`, { body: { ttl: 5 }, headers: { 'Idempotency-Key': 'grants-z4' } }),
    );
    const slowDomainTable = beforeFirstCall(
      (command) => command.startsWith('TransactWrite'),
      () => new Promise((resolve) => setTimeout(resolve, 2500)),
    );
    await as('zone-update', () =>
      call('POST', '/v2/domains/demo-shop.nl/zone/update', { body: { ttl: 3600 }, headers: { 'Idempotency-Key': 'grants-z5' } }),
    );
    slowDomainTable();
    await as('zone-update', () =>
      call('POST', '/v2/domains/demo-shop.nl/zone/update', { body: { ttl: 5 }, headers: { 'Idempotency-Key': 'grants-z7' } }),
    );
    const slowDelete = beforeFirstCall(
      (command) => command.startsWith('TransactWrite'),
      () => new Promise((resolve) => setTimeout(resolve, 2500)),
    );
    await as('dns-zone-delete', () => call('DELETE', `/v2/dns/zones/${zoneId}`, { headers: { 'Idempotency-Key': 'grants-z6' } }));
    slowDelete();
    await as('dns-zone-delete', () => call('DELETE', `/v2/dns/zones/${zoneId}`, { headers: { 'Idempotency-Key': 'grants-z6' } }));
    const dcv = [{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'postmaster@demo-shop.nl' }];
    const emailed = await renew((await testCertificate()).id, { period: 12, csr, dcv });
    await as('process-resend', () => call('POST', `/v2/processes/${emailed.headers['x-process-id']}/resend`));
    const dns = await renew((await testCertificate()).id, { period: 12, csr });
    await as('process-cancel', () => call('DELETE', `/v2/processes/${dns.headers['x-process-id']}`));

    // The notifications the transfers and renewals above wrote: listed, polled, read, acknowledged.
    await as('notifications', () => call('GET', '/v2/customers/demo/notifications?acknowledgeDate:null=&eventType=TransferDomainEvent'));
    await as('notifications', () => call('GET', '/v2/customers/demo/notifications?limit=0'));
    const polled = await as('notification-poll', () => call('GET', '/v2/customers/demo/notifications/poll'));
    await as('notification', () => call('GET', `/v2/customers/demo/notifications/${polled.body.notification.id}`));
    await as('notification-ack', () => call('POST', `/v2/customers/demo/notifications/${polled.body.notification.id}/ack`));
    process.env.WEBHOOKS_ALLOW_LOOPBACK = 'true';
    await as('webhook-put', () => call('PUT', '/v2/customers/demo/webhook', { body: { url: 'http://127.0.0.1:9/hook' } }));
    await as('webhook-put', () => call('PUT', '/v2/customers/demo/webhook', { body: { url: 'http://127.0.0.1:9/moved' } }));
    delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
    await as('webhook', () => call('GET', '/v2/customers/demo/webhook'));
    await as('webhook-rotate', () => call('POST', '/v2/customers/demo/webhook/rotate'));
    await as('webhook-delete', () => call('DELETE', '/v2/customers/demo/webhook'));
    // Delivery to an endpoint that refuses connections: the stream consumer queues it in the retry
    // lane; the retry job claims, tries and reschedules it, and drops a delivery whose notification is gone.
    process.env.WEBHOOKS_ALLOW_LOOPBACK = 'true';
    await call('PUT', '/v2/customers/demo/webhook', { body: { url: 'http://127.0.0.1:9/hook' } });
    const notified = await getNotification('demo', polled.body.notification.id);
    // The delivery queue's message: the stream record, as the pipe sends it.
    const record = {
      eventName: 'INSERT',
      dynamodb: {
        SequenceNumber: '1',
        NewImage: marshall(notificationItem(notified as NotificationRecord), { removeUndefinedValues: true }),
      },
    };
    const queueEvent = {
      Records: [{ messageId: 'm-1', body: JSON.stringify(record), attributes: { MessageGroupId: 'demo' } }],
    } as unknown as SQSEvent;
    await as('webhook-deliver', () => webhookDeliver(queueEvent, jobContext));
    // The notification's deletion (the TTL's, at the end of its retention), as the stream hands it over.
    const removal = {
      Records: [
        {
          eventID: `removed-${notified?.id}`,
          eventName: 'REMOVE',
          userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
          dynamodb: {
            SequenceNumber: '2',
            OldImage: marshall(notificationItem(notified as NotificationRecord), { removeUndefinedValues: true }),
          },
        },
      ],
    } as unknown as DynamoDBStreamEvent;
    await as('notification-counts', () => notificationCounts(removal));
    await enqueueDelivery({ customer: 'other', notificationId: 999_999_999, attempts: 0, dueDate: '2026-01-01T00:00:00Z' });
    await as('webhook-retry', () => webhookRetry({ ...scheduled, time: plus(new Date(), 86_400).toISOString() }, jobContext));
    await putDeadLetter({
      customer: 'demo',
      notificationId: 999_999_998,
      attempts: 10,
      deadDate: '2026-01-01T00:00:00Z',
      lastFailure: 'HTTP 500',
    });
    await as('webhook-dead-letters', () => call('GET', '/v2/customers/demo/webhook/dead-letters'));
    await as('webhook-redeliver', () => call('POST', '/v2/customers/demo/webhook/dead-letters/999999998/redeliver'));
    delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
    await as('transfer-poll', () => poll(plus(new Date(), 30 * 86_400)));
    await as('dcv-check', () => dcvCheck(scheduled, jobContext));
    await as('exchange-rates', () => exchangeRates(scheduled, jobContext));
    await as('repair-counts', () => repairCounts(scheduled, jobContext));

    // The SDKs' reads of data held: a name's latest transfer, the providers, the SSL products, the rates.
    await as('transfer-latest', () => call('GET', `/v2/domains/${waiting}/transfer`));
    await as('transfer-latest', () => call('GET', '/v2/domains/never-transferred.com/transfer'));
    await as('providers', () => call('GET', '/v2/providers?q=nl'));
    await as('ssl-products', () => call('GET', '/v2/ssl/products?limit=2'));
    await as('ssl-product', () => call('GET', '/v2/ssl/products/ssl_sectigo_ov'));
    forgetCachedRates();
    await as('exchange-rates-info', () => call('GET', '/v2/exchangerates/USD'));
    forgetCachedRates();
    await as('exchange-rates-list', () => call('GET', '/v2/exchangerates'));
    const retried = await renew((await testCertificate()).id, { period: 12, csr });
    const dcvChange = { dcv: [{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'admin@demo-shop.nl' }] };
    await as('process-resend', () => call('POST', `/v2/processes/${retried.headers['x-process-id']}/resend`, { body: dcvChange }));
    forgetCatalogue();
    await as('certificate', () => call('GET', '/v2/ssl/certificates/1001'));
    await as('certificate', () => call('GET', '/v2/ssl/certificates/2001'));
    await as('certificate-download', () => call('GET', '/v2/ssl/certificates/1001/download?format=CSR'));
    await as('certificate-download', () => call('GET', '/v2/ssl/certificates/2001/download'));
    forgetCatalogue();
    await as('certificates', () => call('GET', '/v2/ssl/certificates?offset=1&limit=2'));
    await as('certificates', () => call('GET', '/v2/ssl/certificates?status=ACTIVE&limit=1'));
    await as('certificates', () => call('GET', '/v2/ssl/certificates?id=1001&domainName:like=*demo*'));
    // Every route's sample request (its OpenAPI examples, test/support/route-samples.ts): a route
    // the flows above do not name is still run, and must do no more than it declares.
    for (const route of routes) {
      const sample = await sampleOf(route);
      await as(route.dir, () => sendSample(sample));
    }
    // A zone by id whose partition by id lacks a record (the index lagging a write, or an item not
    // yet placed by the migration): read on the table's terms, the header by name, its DNS standing.
    await as('dns-zone', () => call('GET', '/v2/dns/zones/999'));
    const lagging = (await queryPartition(keys.domainCollection('demo-secure.com').pk)).find((item) => item.entity === 'zoneRecord');
    await db().send(
      new UpdateCommand({ TableName: tableName(), Key: { pk: lagging?.pk, sk: lagging?.sk }, UpdateExpression: 'REMOVE gsi2pk, gsi2sk' }),
    );
    await as('dns-zone', () => call('GET', '/v2/dns/zones/102'));
    // The domains of the account: one, its fields, a foreign one; the listing by name, expiry and status.
    await as('domain', () => call('GET', '/v2/domains/demo-shop.nl'));
    await as('domain', () => call('GET', '/v2/domains/other-site.com?fields=domainName'));
    await as('domains', () => call('GET', '/v2/domains?offset=1&limit=1'));
    await as('domains', () => call('GET', '/v2/domains?expiryDate:lt=2027-12-01&offset=1'));
    await as('domains', () => call('GET', '/v2/domains?status=OK&offset=1'));
    await as('domains', () => call('GET', '/v2/domains?autoRenew=true&export=true'));
    await as('domain-update', () => call('POST', '/v2/domains/demo-secure.com/update?quote=true', { body: { privacyProtect: false } }));
    await as('domain-update', () =>
      call('POST', '/v2/domains/demo-shop.nl/update', {
        body: { status: ['CLIENT_TRANSFER_PROHIBITED'], authcode: '' },
        headers: { 'Idempotency-Key': 'grants-update-1' },
      }),
    );
    await as('domain-update', () =>
      call('POST', '/v2/domains/demo-shop.nl/update', { body: { contacts: [{ role: 'ADMIN', handle: 'nobody' }] } }),
    );
    // The managed zone through an update: linked from a template (its records staged), the link broken, removed.
    await sandboxDomain('grants-zone-link.com', { transfer: { stages: [], outcome: 'completed' } });
    expect((await transfer('grants-zone-link.com', { ...demoBody, authcode: 'TEST-CODE' })).status).toBe(200);
    for (const zone of [{ service: 'BASIC', template: 'demo-template' }, { link: false }, {}]) {
      const res = await as('domain-update', () => call('POST', '/v2/domains/grants-zone-link.com/update', { body: { zone } }));
      expect(res.status, res.raw).toBe(200);
    }
    await as('domain-check', () => call('GET', '/v2/domains/register-premium.com/check?renewPrice=true'));
    await as('domain-check', () => call('GET', '/v2/domains/other-site.com/check'));
    // The life cycle: renew (quote, keyed), delete into redemption, restore (quote, keyed), then the expiry job a year on.
    await as('domain-renew', () => call('POST', '/v2/domains/demo-shop.nl/renew?quote=true', { body: { period: 12 } }));
    await as('domain-renew', () =>
      call('POST', '/v2/domains/demo-shop.nl/renew', { body: { period: 12 }, headers: { 'Idempotency-Key': 'grants-r1' } }),
    );
    await as('domain-renew', () =>
      call('POST', '/v2/domains/demo-shop.nl/renew', { body: { period: 24 }, headers: { 'Idempotency-Key': 'grants-r3' } }),
    );
    await as('domain-delete', () => call('DELETE', '/v2/domains/demo-shop.nl', { headers: { 'Idempotency-Key': 'grants-d1' } }));
    await as('domain-restore', () => call('POST', '/v2/domains/demo-shop.nl/restore?quote=true', { body: { reason: 'grants' } }));
    await as('domain-restore', () =>
      call('POST', '/v2/domains/demo-shop.nl/restore', { body: { reason: 'grants' }, headers: { 'Idempotency-Key': 'grants-r2' } }),
    );
    await as('domain-delete', () => call('DELETE', '/v2/domains/demo-secure.com'));
    await as('domain-expiry', () => domainExpiry({ ...scheduled, time: plus(new Date(), 400 * 86_400).toISOString() }, jobContext));
    await as('domain-expiry', () => domainExpiry({ ...scheduled, time: plus(new Date(), 800 * 86_400).toISOString() }, jobContext));
    const contacts = '/v2/customers/demo/contacts';
    const grantee = { name: 'Grant Ee', addressLine: ['Dam 1'], postalCode: '1012 JS', city: 'Amsterdam', country: 'NL' };
    const newContact = { ...grantee, email: 'grant@example.nl', voice: '+31.201112233' };
    await as('contacts', () => call('GET', `${contacts}?order=-createdDate&offset=1&limit=2`));
    await as('contacts', () => call('GET', `${contacts}?organization:null=&export=true`));
    await as('contacts', () => call('GET', `${contacts}?handle=demo-admin`));
    await as('contact', () => call('GET', `${contacts}/demo-admin?fields=handle`));
    await as('contact-create', () =>
      call('POST', `${contacts}/grants-contact`, { body: newContact, headers: { 'Idempotency-Key': 'grants-c1' } }),
    );
    await as('contact-create', () =>
      call('POST', `${contacts}/grants-contact`, { body: newContact, headers: { 'Idempotency-Key': 'grants-c1' } }),
    );
    await as('contact-create', () => call('POST', `${contacts}/grants-contact`, { body: newContact }));
    await as('contact-update', () =>
      call('POST', `${contacts}/grants-contact/update`, { body: { city: 'Utrecht' }, headers: { 'Idempotency-Key': 'grants-c2' } }),
    );
    await as('contact-validate', () =>
      call('POST', `${contacts}/grants-contact/validate`, {
        body: { categories: ['General'] },
        headers: { 'Idempotency-Key': 'grants-c3' },
      }),
    );
    await as('contact-split', () =>
      call('POST', `${contacts}/grants-contact/split`, {
        body: { newHandle: 'grants-split' },
        headers: { 'Idempotency-Key': 'grants-c4' },
      }),
    );
    await as('contact-properties-add', () =>
      call('POST', `${contacts}/grants-contact/sidn`, {
        body: { properties: { legalForm: 'BV' } },
        headers: { 'Idempotency-Key': 'grants-c5' },
      }),
    );
    await as('contact-properties-update', () =>
      call('POST', `${contacts}/grants-contact/sidn/update`, {
        body: { properties: { legalForm: 'NV' } },
        headers: { 'Idempotency-Key': 'grants-c6' },
      }),
    );
    // Refused under an Idempotency-Key: the key's claim is deleted.
    const refused = (fn: string, method: string, path: string, body?: unknown) =>
      as(fn, () =>
        call(method, `${contacts}${path}`, { ...(body ? { body } : {}), headers: { 'Idempotency-Key': `grants-refused-${fn}` } }),
      );
    await refused('contact-create', 'POST', '/demo-admin', { ...newContact });
    await refused('contact-update', 'POST', '/nobody/update', { city: 'Utrecht' });
    await refused('contact-validate', 'POST', '/nobody/validate', { categories: ['General'] });
    await refused('contact-split', 'POST', '/nobody/split', { newHandle: 'grants-nobody' });
    await refused('contact-properties-add', 'POST', '/nobody/sidn', { properties: { legalForm: 'BV' } });
    await refused('contact-properties-update', 'POST', '/nobody/sidn/update', { properties: { legalForm: 'BV' } });
    await refused('contact-delete', 'DELETE', '/nobody');
    await as('contact-delete', () => call('DELETE', `${contacts}/demo-admin`));
    await as('contact-delete', () => call('DELETE', `${contacts}/grants-split`, { headers: { 'Idempotency-Key': 'grants-c7' } }));
    // Against an upstream sandbox started here, which may take up to 150 s to get ready on a busy run.
    await registryMetadataFlow((run) => as('registry-metadata', run));
  }, 210_000);

  it('runs the flows of the DNS functions against a real PowerDNS', async () => {
    const pdns = await startPowerDns();
    Object.assign(process.env, { DNS_PROVIDER: 'powerdns', POWERDNS_API_URL: pdns.apiUrl, POWERDNS_API_KEY: pdns.apiKey });
    try {
      const { handler: zoneSync } = await import('../functions/zone-sync/handler.ts');
      const { handler: zoneReconcile } = await import('../functions/zone-reconcile/handler.ts');
      const changed = (...names: string[]) =>
        ({
          Records: names.map((name, i) => ({
            eventName: 'MODIFY',
            dynamodb: { Keys: { pk: { S: `DOMAIN#${name}` }, sk: { S: 'ZONE' } }, SequenceNumber: String(i + 1) },
          })),
        }) as unknown as DynamoDBStreamEvent;
      // First pushes, a replay, and a zone that was deleted (removed from the provider).
      await as('zone-sync', () => zoneSync(changed('demo-shop.nl', 'demo-secure.com', 'other-site.com')));
      await as('zone-sync', () => zoneSync(changed('demo-shop.nl')));
      const deleted = async (name: string) => {
        const zone = (await getZone(name)) as ZoneRecord;
        await deleteZoneRecord((await getZoneHead(name, true)) as ZoneHead, []);
        return zone;
      };
      const secure = await deleted('demo-secure.com');
      await as('zone-sync', () => zoneSync(changed('demo-secure.com')));
      // The reconcile job compares every served zone; one deleted unseen is removed.
      const other = await deleted('other-site.com');
      await as('zone-reconcile', () => zoneReconcile(scheduled, jobContext));
      await putZone(other);
      await putZone(secure);
      // A retrieve from a hidden master (this PowerDNS): one that transfers, one the master cannot answer (notified).
      Object.assign(process.env, { ZONE_MASTER_ALLOW_LOOPBACK: 'true', ZONE_MASTER_PORT: String(pdns.dnsPort) });
      const atMaster = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones`, {
        method: 'POST',
        headers: { 'X-API-Key': pdns.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          name: 'grants-retrieve.nl.',
          kind: 'Native',
          nameservers: ['ns1.hidden-master.example.'],
          rrsets: [
            {
              name: 'www.grants-retrieve.nl.',
              type: 'A',
              ttl: 300,
              changetype: 'REPLACE',
              records: [{ content: '192.0.2.8', disabled: false }],
            },
          ],
        }),
      });
      expect(atMaster.status).toBe(201);
      const withMaster = async (name: string) =>
        (await call('POST', '/v2/dns/zones', { body: { name, service: 'BASIC', master: '127.0.0.1' } })).body.id as number;
      const [transferred, unknown] = [await withMaster('grants-retrieve.nl'), await withMaster('grants-unknown.nl')];
      const retrieved = await as('dns-zone-retrieve', () =>
        call('POST', `/v2/dns/zones/${transferred}/retrieve`, { headers: { 'Idempotency-Key': 'grants-r1' } }),
      );
      expect(retrieved.status, retrieved.raw).toBe(204);
      const failed = await as('dns-zone-retrieve', () =>
        call('POST', `/v2/dns/zones/${unknown}/retrieve`, { headers: { 'Idempotency-Key': 'grants-r2' } }),
      );
      expect(failed.status, failed.raw).toBe(400);
    } finally {
      for (const name of ['DNS_PROVIDER', 'POWERDNS_API_URL', 'POWERDNS_API_KEY', 'ZONE_MASTER_ALLOW_LOOPBACK', 'ZONE_MASTER_PORT'])
        delete process.env[name];
      await pdns.stop();
    }
  }, 60_000);

  const declared: [string, TableUse | undefined][] = [
    ...routes.map((r) => [r.dir, r.table] as [string, TableUse | undefined]),
    ...jobs.map((j) => [j.dir, j.table] as [string, TableUse | undefined]),
    ...streamConsumers.map((c) => [c.dir, c.table] as [string, TableUse | undefined]),
    [authorizerDir, authorizerTable],
  ];

  it.each(declared)(
    '%s: takes exactly the actions it declares, queries the index only if it says so, touches only the kinds it names',
    (fn, use) => {
      const seen = used.get(fn) ?? emptyUse();
      expect({ actions: [...seen.actions].sort(), index: seen.index }).toEqual({
        actions: [...(use?.actions ?? [])].sort(),
        index: use?.index === true,
      });
      if (use?.only) {
        const allowed = use.only.map((kind) => keyKinds[kind as keyof typeof keyKinds]);
        expect([...seen.kinds].filter((kind) => !allowed.includes(kind as never))).toEqual([]);
      }
    },
  );
});
